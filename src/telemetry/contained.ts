let warned = false;

/**
 * Runs one recording step of telemetry. Telemetry never changes an answer or a bundle's fate: an
 * SDK that throws (a provider already shut down, an exporter's bug) is said once as a warning,
 * and the guard or the consumer goes on as if nothing were recorded.
 */
export function contained(record: () => void): void {
  try {
    record();
  } catch (error) {
    if (warned) return;
    warned = true;
    process.emitWarning(`OpenTelemetry threw while svcgate recorded, so this and later records may be missing: ${error instanceof Error ? error.message : String(error)}`, { code: 'SVCGATE_TELEMETRY' });
  }
}
