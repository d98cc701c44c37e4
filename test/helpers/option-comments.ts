// Walks TypeDoc's JSON output (typedoc --json) for the option types of the public API: every
// exported interface or type alias named *Options or *Config, and the interfaces their fields lead
// to (nested option objects such as BearerJwtConfig.issuers or BundleConsumerOptions.polling).

/** The parts of TypeDoc's JSON model this walk reads. */
export interface DocNode {
  id: number;
  name: string;
  kind: number;
  comment?: { summary?: { text: string }[]; blockTags?: { tag: string }[] };
  children?: DocNode[];
  type?: DocType;
}

interface DocType {
  type: string;
  target?: number | unknown;
  types?: DocType[];
  elementType?: DocType;
  typeArguments?: DocType[];
  declaration?: { children?: DocNode[]; signatures?: unknown[] };
}

export const KIND = { module: 2, interface: 256, property: 1024, typeAlias: 2097152 } as const;

/** Option types that are not named *Options or *Config, but that a user writes: they are checked too. */
export const OTHER_OPTION_TYPES = ['BundleSigning', 'BundleVerification', 'PermissionSuite', 'RequestParts', 'HttpErrorDetails'];

/** What svcgate makes and an option only carries (compileAcl's output into writeBundle, a decision into an error): not walked into. */
const MADE_BY_SVCGATE = ['DataDocument', 'Decision'];

export interface OptionReport {
  /** `module.Type`, for each option type found. */
  optionTypes: string[];
  /** Option types that are type aliases instead of interfaces (`module.Type`). */
  notInterfaces: string[];
  /** `module.Type.field` (or `module.Type.field.nested`) without a description. */
  undescribed: string[];
  /** The comment block tags of every field, by `module.Type.field`. */
  tags: Map<string, string[]>;
}

function described(node: DocNode): boolean {
  return (node.comment?.summary ?? []).map((part) => part.text).join('').trim() !== '';
}

export function optionReport(project: DocNode): OptionReport {
  const byId = new Map<number, { node: DocNode; module: string }>();
  for (const module of project.children ?? []) for (const node of module.children ?? []) byId.set(node.id, { node, module: module.name });
  const report: OptionReport = { optionTypes: [], notInterfaces: [], undescribed: [], tags: new Map() };
  const seen = new Set<number>();
  const queue = [...byId.values()].filter(({ node }) => (node.kind === KIND.interface || node.kind === KIND.typeAlias) && (/(Options|Config)$/.test(node.name) || OTHER_OPTION_TYPES.includes(node.name)));
  for (const { node } of queue) seen.add(node.id);

  // Fields of the type `type` reaches: an inline object's, and the interfaces it refers to (queued).
  const walkType = (type: DocType | undefined, at: string): void => {
    if (type === undefined) return;
    if (type.type === 'reference' && typeof type.target === 'number') {
      const target = byId.get(type.target);
      if (target?.node.kind === KIND.interface && !seen.has(target.node.id) && !MADE_BY_SVCGATE.includes(target.node.name)) {
        seen.add(target.node.id);
        queue.push(target);
      }
    }
    if (type.type === 'reflection') walkFields(type.declaration?.children ?? [], at);
    for (const inner of [...(type.types ?? []), ...(type.typeArguments ?? []), ...(type.elementType ? [type.elementType] : [])]) walkType(inner, at);
  };
  const walkFields = (fields: DocNode[], at: string): void => {
    for (const field of fields) {
      if (field.kind !== KIND.property) continue;
      const path = `${at}.${field.name}`;
      if (!described(field)) report.undescribed.push(path);
      report.tags.set(path, (field.comment?.blockTags ?? []).map(({ tag }) => tag));
      walkType(field.type, path);
    }
  };

  for (let index = 0; index < queue.length; index += 1) {
    const { node, module } = queue[index]!;
    const name = `${module}.${node.name}`;
    report.optionTypes.push(name);
    if (node.kind !== KIND.interface) report.notInterfaces.push(name);
    walkFields(node.children ?? [], name);
    walkType(node.type, name);
  }
  return report;
}
