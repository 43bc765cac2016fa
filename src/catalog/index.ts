// The catalog module's public surface.
export * from './catalog';
export * from './commands';
export { configSubject, connectSubject } from './events';
export { type Applied, createStateMachine, type StateMachine } from './state';
export { type CatalogOptions, createCatalog } from './store';
export { expiredOutput, startTtlScheduler, type TtlScheduler, type TtlSchedulerOptions } from './ttl';
export * from './types';
