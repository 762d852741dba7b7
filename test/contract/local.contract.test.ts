import { defineContract } from './contract-cases.js';
import { makeLocalTarget } from './targets.js';

defineContract('local client (embedded engine)', makeLocalTarget);
