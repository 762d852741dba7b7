import { describe, expect, it } from 'vitest';
import { timeOrderedUid } from '../../src/engine/time-ordered-uid.js';

describe('timeOrderedUid', () => {
  it('timeOrderedUid: is a version 7 UUID whose order follows time', () => {
    const first = timeOrderedUid(1_700_000_000_000);
    const second = timeOrderedUid(1_700_000_000_001);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first < second).toBe(true);
  });

  it('timeOrderedUid: ids of the same millisecond are all different', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => timeOrderedUid(1_700_000_000_000)));
    expect(ids.size).toBe(2000);
  });
});
