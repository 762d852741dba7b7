import { expect, it } from 'vitest';
import { onboardingScenario } from './scenario.mjs';

it('onboards a customer: workspace, QR link, connected webhook, first send', async () => {
  await onboardingScenario({
    match: (value, pattern) => expect(value).toMatch(pattern),
    equal: (actual, expected) => expect(actual).toBe(expected),
    rejects: (promise) => expect(promise).rejects.toThrow(),
  });
});
