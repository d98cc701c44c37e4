/**
 * The path prefixes the API is served under, from `servers[].url` (variables at their default or
 * each enum value). Hosts are not compared: like @oas-tools/core, only the path counts.
 */
export function serverPrefixes(servers: unknown): string[] {
  if (!Array.isArray(servers) || servers.length === 0) return [''];
  const prefixes = servers.flatMap((server: { url?: unknown; variables?: Record<string, { default?: unknown; enum?: unknown[] }> }) => {
    if (typeof server?.url !== 'string') return [];
    let urls = [server.url];
    for (const [name, variable] of Object.entries(server.variables ?? {})) {
      const values = Array.isArray(variable.enum) && variable.enum.length > 0 ? variable.enum : [variable.default];
      urls = urls.flatMap((url) => values.map((value) => url.split(`{${name}}`).join(String(value))));
    }
    return urls.map((url) => new URL(url, 'http://localhost').pathname.replace(/\/+$/, ''));
  });
  return prefixes.length > 0 ? [...new Set(prefixes)] : [''];
}
