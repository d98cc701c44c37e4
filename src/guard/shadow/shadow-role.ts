/** Longest role key kept: a role claim is the issuer's, but a table keyed by it must stay small. */
const MAX_ROLE_LENGTH = 100;

/**
 * The caller's role claim as a key of `byRole`: a string as it is, a list of strings sorted and
 * joined with `,`, `anonymous` without a claim; cut to 100 characters.
 */
export function shadowRole(role: unknown): string {
  let key: string;
  if (role === undefined || role === null) key = 'anonymous';
  else if (typeof role === 'string') key = role;
  else if (Array.isArray(role)) key = role.filter((entry): entry is string => typeof entry === 'string').sort().join(',') || 'anonymous';
  else key = JSON.stringify(role) ?? String(role);
  return key.length > MAX_ROLE_LENGTH ? `${key.slice(0, MAX_ROLE_LENGTH)}…` : key;
}
