import { z } from 'zod';
import type { CheckOwnership } from '../policy/decide';
import type { DecisionLog } from './decision-log';

const fn = <T>(what: string) => z.custom<T>((value) => typeof value === 'function', { error: `${what} must be a function` });

/** The options every adapter shares, validated where the adapter is created. */
export const aclOptionsShape = {
  roleBinding: z.string().min(1, { error: 'roleBinding must name a claim' }).optional(),
  checkOwnership: fn<CheckOwnership>('checkOwnership').optional(),
  decisionLog: fn<DecisionLog>('decisionLog').optional(),
  decisionCacheSize: z.number().int().nonnegative({ error: 'decisionCacheSize must be a whole number, 0 for no cache' }).optional(),
};

export interface AclOptions {
  /** The claim that carries the role(s); default `role`, which is also the fallback. */
  roleBinding?: string;
  checkOwnership?: CheckOwnership;
  decisionLog?: DecisionLog;
  /** Decisions remembered per compiled ACL (see EvaluatorOptions); default 10,000, 0 for none. */
  decisionCacheSize?: number;
}

/** The options the decision step needs, picked from an adapter's validated configuration. */
export function decisionOptions(config: AclOptions): AclOptions {
  return { roleBinding: config.roleBinding, checkOwnership: config.checkOwnership, decisionLog: config.decisionLog };
}
