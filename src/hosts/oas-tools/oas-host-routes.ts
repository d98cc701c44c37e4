/** The HTTP methods @oas-tools/core registers routes for, in its order. */
const HOST_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];

interface Server {
  url: string;
  variables?: Record<string, { default?: unknown; enum?: unknown[] }>;
}

/**
 * The Express routes @oas-tools/core 3.x registers for one path, by method, worked out exactly as
 * its own `OASBase.register` does, quirks included: path-item and operation `servers` replace the
 * document's only when non-empty, an operation's `servers` carry over to the methods after it, and
 * server variables are filled in one at a time (the others stay `%7Bname%7D`). The guard must sit
 * on exactly the routes the host serves: a route it computed otherwise would leave the host's
 * route unguarded.
 */
export function hostRoutes(document: { servers?: unknown }, item: Record<string, unknown>, path: string): Map<string, string[]> {
  let prefixes = nonEmpty(document.servers) ? prefixesOf(document.servers) : ['/'];
  if (nonEmpty(item.servers)) prefixes = prefixesOf(item.servers);
  const methodsByRoute = new Map<string, string[]>();
  for (const method of Object.keys(item).filter((key) => HOST_METHODS.includes(key))) {
    const servers = (item[method] as { servers?: unknown } | null)?.servers;
    if (nonEmpty(servers)) prefixes = prefixesOf(servers);
    for (const prefix of prefixes) {
      const route = (prefix + path).replace(/\/\//g, '/');
      methodsByRoute.set(route, [...(methodsByRoute.get(route) ?? []), method]);
    }
  }
  return methodsByRoute;
}

function nonEmpty(servers: unknown): servers is Server[] {
  return Array.isArray(servers) && servers.length > 0;
}

function prefixesOf(servers: Server[]): string[] {
  const prefixes = servers.flatMap((server) => {
    const pathname = new URL(server.url, 'http://localhost').pathname;
    if (!server.variables) return [pathname];
    return Object.entries(server.variables).flatMap(([name, variable]) => {
      const placeholder = `%7B${name}%7D`;
      const values = Array.isArray(variable.enum) && variable.enum.length > 0 ? variable.enum : [variable.default];
      return values.map((value) => pathname.split(placeholder).join(String(value)));
    });
  });
  return [...new Set(prefixes)];
}
