import { defineContract } from './contract-cases.js';
import { makeLocalTarget, STORES } from './targets.js';

for (const store of STORES) defineContract(`local client (embedded engine on ${store})`, () => makeLocalTarget({ store }));
