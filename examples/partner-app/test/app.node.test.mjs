import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onboardingScenario } from './scenario.mjs';

test('onboards a customer: workspace, QR link, connected webhook, first send', async () => {
  await onboardingScenario({
    match: (value, pattern) => assert.match(value, pattern),
    equal: (actual, expected) => assert.equal(actual, expected),
    rejects: (promise) => assert.rejects(promise),
  });
});
