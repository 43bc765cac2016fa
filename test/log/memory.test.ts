import { createMemoryLog } from '../../src/log/memory';
import { logContract } from './contract';

logContract('memory', async () => ({ log: createMemoryLog(), cleanup: async () => {} }));
