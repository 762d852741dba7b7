import { defineContract } from './contract-cases.js';
import { makeHttpTarget, STORES } from './targets.js';

for (const store of STORES) defineContract(`HTTP client (svc serve on port 0, ${store})`, () => makeHttpTarget(undefined, { store }));
