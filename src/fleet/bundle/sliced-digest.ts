import { createHash, type Hash } from 'node:crypto';
import { TimeSlice } from './time-slice';

/** Bytes hashed between two looks at the time slice: a 64 MiB bundle in one call held the event loop for about 50 ms. */
const SLICE_BYTES = 1024 * 1024;

/** Feeds `bytes` to `hash` 1 MiB at a time, yielding to the event loop through `slice` when its budget is spent. */
export async function updateInSlices(hash: Hash, bytes: Uint8Array, slice: TimeSlice): Promise<Hash> {
  for (let at = 0; at < bytes.byteLength; at += SLICE_BYTES) {
    hash.update(bytes.subarray(at, at + SLICE_BYTES));
    await slice.pause();
  }
  return hash;
}

/**
 * The SHA-256 (hex) of a bundle's bytes, taken in slices that let requests through: what the
 * consumer tells the active, a refused and the persisted bundle apart by.
 */
export async function bundleDigest(bytes: Uint8Array): Promise<string> {
  return (await updateInSlices(createHash('sha256'), bytes, new TimeSlice())).digest('hex');
}
