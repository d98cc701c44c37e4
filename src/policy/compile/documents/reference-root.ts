import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config-error';

/** The refRoot option, as compileAcl and the adapters validate it. */
export const refRootSchema = z.string({ error: 'refRoot must be the path of a folder' }).min(1, { error: 'refRoot must be the path of a folder' });

/** A `$ref` being followed, as a refusal of it needs it: where it is is spelled out only for an error. */
export interface ReferenceSite {
  /** The reference as a message shows it: quoted, cut short, in printable ASCII (it comes from the document). */
  readonly shown: string;
  /** A ConfigError naming the file and the JSON path of the `$ref`. */
  refuse(problem: string, fix: string): ConfigError;
}

/**
 * The folder that file `$ref`s must stay inside: the OpenAPI document's own folder (the working
 * directory for a document passed as an object), or the folder the `refRoot` option names. A
 * document from a pull request may otherwise copy any .json or .yaml file of the machine into
 * what is built from it (a bundle's data.json, an error message).
 */
export class ReferenceRoot {
  private real: string | undefined;

  constructor(
    /** The folder, as an absolute path. */
    readonly folder: string,
    /** True when the refRoot option named it, to word the fix. */
    private readonly chosen: boolean,
  ) {}

  static of(documentFolder: string | null, refRoot: string | undefined): ReferenceRoot {
    return refRoot === undefined ? new ReferenceRoot(documentFolder ?? process.cwd(), false) : new ReferenceRoot(resolve(refRoot), true);
  }

  /**
   * The file a reference names, from the folder of the file that holds it, once it is known to
   * lie inside the root: written relative (not absolute), inside once `..` segments are resolved,
   * and inside once symbolic links are (each path's real path compared with the root's).
   */
  fileOf(path: string, fromFolder: string, site: ReferenceSite): string {
    if (isAbsolute(path)) throw site.refuse(`$ref ${site.shown} is an absolute path`, this.fix('write it relative to the file that holds it, e.g. "schemas/user.yaml#/User"'));
    const target = resolve(fromFolder, path);
    if (!inside(this.folder, target)) throw site.refuse(`$ref ${site.shown} leads outside ${this.folder}`, this.fix(`keep the files it refers to inside ${this.folder}`));
    const real = realPath(target);
    // A file that does not exist is left to the read, which says so.
    if (real !== undefined && !inside(this.realFolder(site), real)) {
      throw site.refuse(`$ref ${site.shown} leads outside ${this.folder} through a symbolic link`, this.fix(`keep the files it refers to inside ${this.folder}, as files rather than links to elsewhere`));
    }
    return target;
  }

  private realFolder(site: ReferenceSite): string {
    if (this.real !== undefined) return this.real;
    const real = realPath(this.folder);
    if (real === undefined) throw site.refuse(`the folder ${this.folder} that file references must stay inside cannot be read`, 'name an existing folder with the refRoot option (--ref-root <dir> in the CLI)');
    this.real = real;
    return real;
  }

  private fix(first: string): string {
    const fix = `${first}, or name a folder that holds them all with the refRoot option (--ref-root <dir> in the CLI)`;
    return this.chosen ? fix : `${fix}; without it, file references stay inside the document's folder`;
  }
}

/** Outside: `..` as the first segment of the way there, or another drive on Windows (relative is then absolute). */
function inside(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return !(rest === '..' || rest.startsWith(`..${sep}`) || isAbsolute(rest));
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
