import { randomFillSync } from 'node:crypto';

// Random bytes are drawn from the system in blocks: one call per 256 uids instead of one per uid.
const POOL_SIZE = 16 * 256;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * A UUID version 7: 48 bits of milliseconds, then 74 random bits. Unguessable like a v4, but new ids sort
 * after old ones, so inserts land at the end of the unique index instead of splitting pages all over it.
 */
export function timeOrderedUid(nowMs: number): string {
  if (offset + 16 > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, offset + 16));
  offset += 16;
  bytes.writeUIntBE(Math.max(0, Math.floor(nowMs)) % 2 ** 48, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
