// The materializer's public face: views, the materializer, sources and the shared store.

export { type Backoff, type BackoffOptions, createBackoff } from './backoff';
export { requestForKey, storeKey, viewForKey } from './keys';
export {
  createMaterializer,
  type Materializer,
  type MaterializerLogger,
  type MaterializerOptions,
} from './materializer';
export { classifyError, type Source } from './source';
export { type GrpcSourceOptions, grpcSource } from './sources/grpc';
export { inProcessSource } from './sources/in-process';
export { createViewStore, type ViewStoreOptions, type ViewStoreWithStats } from './store';
export type { ViewKey, ViewResult, ViewStore, ViewValue } from './types';
export type { View } from './view';
export { deepFreeze } from './view';
export { type ConfigEntriesViewOptions, configEntriesView } from './views/config-entries';
export { type HealthViewOptions, healthView } from './views/health';
export { serviceListView } from './views/service-list';
