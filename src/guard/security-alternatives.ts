/** One OpenAPI security requirement: scheme name -> scopes. All its schemes must be satisfied. */
export type SecurityRequirement = Record<string, string[]>;

/** An operation's security requirements: its own `security` when it has one, else the document's. */
export function operationSecurity(document: { security?: unknown }, item: unknown, method: string): SecurityRequirement[] {
  const operation = (item as Record<string, { security?: unknown } | undefined> | undefined)?.[method.toLowerCase()];
  return (operation?.security ?? document.security ?? []) as SecurityRequirement[];
}

/**
 * The schemes that, once satisfied, show that the request met an alternative without the bearer
 * scheme (`security: [{ apiKey: [] }, { bearerAuth: [] }]`): such a request is not the bearer
 * ACL's to decide. A scheme that also appears in a requirement with the bearer scheme is left
 * out, because its success may belong to that requirement.
 */
export function schemesWithoutBearer(requirements: readonly SecurityRequirement[], bearer: string): ReadonlySet<string> {
  const schemes = new Set<string>();
  const withBearer = new Set<string>();
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) (Object.hasOwn(requirement, bearer) ? withBearer : schemes).add(name);
  }
  for (const name of withBearer) schemes.delete(name);
  return schemes;
}
