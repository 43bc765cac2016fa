// The source contract over the in-process source (straight from the publisher).
import { inProcessSource } from '../../src/materializer/sources/in-process';
import { sourceContract } from './source-contract';

sourceContract('in-process', async (publisher) => ({ source: inProcessSource(publisher), teardown: async () => {} }));
