// The catalog module's public surface.
export * from './catalog';
export * from './commands';
export * from './types';
export { createStateMachine, type Applied, type StateMachine } from './state';
export { createCatalog, type CatalogOptions } from './store';
export { startTtlScheduler, expiredOutput, type TtlScheduler, type TtlSchedulerOptions } from './ttl';
export { configSubject, connectSubject } from './events';
