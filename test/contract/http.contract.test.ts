import { defineContract } from './contract-cases.js';
import { makeHttpTarget } from './targets.js';

defineContract('HTTP client (svc serve on port 0)', makeHttpTarget);
