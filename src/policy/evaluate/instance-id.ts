import { randomUUID } from 'node:crypto';

/**
 * This process's id, drawn once at start-up: the `labels.id` of its decision-log events and of
 * its status reports, as OPA labels both with its own instance id, so that a control plane joins
 * a replica's decisions to its status.
 */
export const INSTANCE_ID = randomUUID();
