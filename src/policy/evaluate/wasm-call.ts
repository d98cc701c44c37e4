import type { LoadedPolicy } from '@open-policy-agent/opa-wasm';

/** Evaluates the policy on an input given as JSON text, at an entrypoint; gives the result set. */
export type WasmCall = (inputText: string, entrypoint: string) => unknown;

/** What opa-wasm 1.x's LoadedPolicy holds, read to call the module's opa_eval directly. */
interface LoadedPolicyFields {
  minorVersion?: unknown;
  mem?: unknown;
  wasmInstance?: { exports?: Record<string, unknown> };
  dataAddr?: unknown;
  dataHeapPtr?: unknown;
  entrypoints?: Record<string, unknown>;
}

/** The module's WebAssembly.Memory, as far as it is used here. */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

const PAGE_BYTES = 65_536;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The call into policy.wasm. opa-wasm's `evaluate` copies the input's bytes into the module's
 * memory from an ArrayBuffer of its own, finds the end of the result one byte at a time in
 * JavaScript and makes a TextDecoder per call: with a new input every request that was a tenth of
 * the cold path's samples. Where the policy is one of ABI 1.2 or later, as opa-wasm loaded it,
 * the input is written straight into the module's memory and opa_eval is called as opa-wasm
 * calls it (same heap addresses, same arguments); any other shape falls back to `evaluate`.
 */
export function wasmCall(policy: LoadedPolicy): WasmCall {
  const fields = policy as unknown as LoadedPolicyFields;
  const opaEval = fields.wasmInstance?.exports?.opa_eval;
  const { entrypoints } = fields;
  const mem = fields.mem as Partial<WasmMemory> | undefined;
  const usable =
    typeof fields.minorVersion === 'number' &&
    fields.minorVersion >= 2 &&
    typeof opaEval === 'function' &&
    typeof mem?.grow === 'function' &&
    // Not instanceof: a module instantiated in another realm (a vm context, jest) has another ArrayBuffer.
    typeof mem.buffer?.byteLength === 'number' &&
    typeof entrypoints === 'object' &&
    entrypoints !== null;
  const viaEvaluate: WasmCall = (inputText, entrypoint) => policy.evaluate(encoder.encode(inputText).buffer as ArrayBuffer, entrypoint);
  if (!usable) return viaEvaluate;
  const memory = mem as WasmMemory;
  const evaluate = opaEval as (reserved: number, entrypoint: number, data: number, input: number, length: number, heap: number, format: number) => number;
  return (inputText, entrypoint) => {
    const id = Object.hasOwn(entrypoints, entrypoint) ? entrypoints[entrypoint] : undefined;
    // Read on every call: setData moves both.
    const { dataAddr, dataHeapPtr } = fields;
    if (typeof id !== 'number' || typeof dataAddr !== 'number' || typeof dataHeapPtr !== 'number') return viaEvaluate(inputText, entrypoint);
    // UTF-8 takes at most three bytes per UTF-16 unit.
    const room = dataHeapPtr + inputText.length * 3 - memory.buffer.byteLength;
    if (room > 0) memory.grow(Math.ceil(room / PAGE_BYTES));
    const { written } = encoder.encodeInto(inputText, new Uint8Array(memory.buffer, dataHeapPtr));
    const resultAddr = evaluate(0, id, dataAddr, dataHeapPtr, written, dataHeapPtr + written, 0);
    const bytes = new Uint8Array(memory.buffer);
    const end = bytes.indexOf(0, resultAddr);
    return JSON.parse(decoder.decode(bytes.subarray(resultAddr, end === -1 ? bytes.length : end)));
  };
}
