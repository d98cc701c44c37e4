/** Go's zero time as encoding/json writes it: OPA sends it for what has not happened yet. */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * An ISO 8601 UTC time (Date#toISOString) as Go's encoding/json writes a time.Time, which OPA's
 * reports carry: RFC 3339 with the fraction's trailing zeros cut (`.120Z` is `.12Z`, `.000Z` is
 * `Z`); null is Go's zero time, as OPA sends a time that has not come yet.
 */
export function goTime(iso: string | null): string {
  if (iso === null) return GO_ZERO_TIME;
  return iso.replace(/\.(\d*?)0*Z$/, (_match, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}
