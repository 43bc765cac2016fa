// The materializer's public face: views, the materializer, sources and the shared store.
export type { ViewKey, ViewResult, ViewStore, ViewValue } from './types';
export type { View } from './view';
export { deepFreeze } from './view';
export { healthView, type HealthViewOptions } from './views/health';
export { serviceListView } from './views/service-list';
export { configEntriesView, type ConfigEntriesViewOptions } from './views/config-entries';
export { createMaterializer, type Materializer, type MaterializerOptions, type MaterializerLogger } from './materializer';
export { createBackoff, type Backoff, type BackoffOptions } from './backoff';
export { type Source, classifyError } from './source';
export { inProcessSource } from './sources/in-process';
export { grpcSource, type GrpcSourceOptions } from './sources/grpc';
export { createViewStore, type ViewStoreOptions, type ViewStoreWithStats } from './store';
export { requestForKey, viewForKey, storeKey } from './keys';
