/**
 * The few file-system calls the store makes, behind an interface so that tests can inject
 * disk faults (EROFS, ENOSPC, EPERM, EIO). Running as root ignores `chmod`, so permission-based
 * fault tests do not work; injection does.
 */
import { promises as fsp } from 'node:fs';

export interface FileHandleSeam {
  writeFile(data: Uint8Array | string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface StatSeam {
  /** With size and mtime, identifies one version of a file (every atomic write makes a new inode). */
  ino?: number;
  size: number;
  mtimeMs: number;
  mtime: Date;
  isDirectory(): boolean;
}

export interface FsSeam {
  readFile(path: string): Promise<Buffer>;
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /** `flags` as for `fs.open` (`'wx'` for a new temp file, `'r'` for a directory to fsync). */
  open(path: string, flags: string, mode?: number): Promise<FileHandleSeam>;
  rename(from: string, to: string): Promise<void>;
  stat(path: string): Promise<StatSeam>;
  mkdir(path: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
}

export const nodeFs: FsSeam = {
  readFile: (p) => fsp.readFile(p),
  writeFile: (p, data) => fsp.writeFile(p, data),
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  rename: (a, b) => fsp.rename(a, b),
  stat: (p) => fsp.stat(p),
  mkdir: async (p) => {
    await fsp.mkdir(p, { recursive: true });
  },
  unlink: (p) => fsp.unlink(p),
  readdir: (p) => fsp.readdir(p),
};

/** A Node-style error (`code`, `syscall`, `path`, errno-like message). */
export function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: injected fault, ${syscall} '${path}'`);
  err.code = code;
  err.syscall = syscall;
  err.path = path;
  return err;
}

export type FsOp = keyof FsSeam | 'handle.writeFile' | 'handle.sync' | 'handle.close';

export interface Fault {
  op: FsOp;
  code: string;
  /** Only paths containing this string (or matching this pattern; a rename is matched as `from -> to`); all paths when absent. */
  path?: string | RegExp;
  /** How many calls fail before the fault stops; unlimited when absent. */
  times?: number;
}

/**
 * Wraps `base` so that calls matching a fault reject with a Node-style error. `faults` is read on
 * every call, so a test may push and splice rules while the seam is in use.
 */
export function faultyFs(faults: Fault[], base: FsSeam = nodeFs): FsSeam {
  const check = (op: FsOp, path: string): void => {
    for (const f of faults) {
      if (f.op !== op) continue;
      if (f.path !== undefined && !(typeof f.path === 'string' ? path.includes(f.path) : f.path.test(path))) continue;
      if (f.times !== undefined) {
        if (f.times <= 0) continue;
        f.times -= 1;
      }
      throw fsError(f.code, op, path);
    }
  };
  const wrapHandle = (h: FileHandleSeam, path: string): FileHandleSeam => ({
    writeFile: async (data) => {
      check('handle.writeFile', path);
      await h.writeFile(data);
    },
    sync: async () => {
      check('handle.sync', path);
      await h.sync();
    },
    close: async () => {
      check('handle.close', path);
      await h.close();
    },
  });
  return {
    readFile: async (p) => (check('readFile', p), base.readFile(p)),
    writeFile: async (p, d) => (check('writeFile', p), base.writeFile(p, d)),
    open: async (p, flags, mode) => {
      check('open', p);
      return wrapHandle(await base.open(p, flags, mode), p);
    },
    rename: async (a, b) => (check('rename', `${a} -> ${b}`), base.rename(a, b)),
    stat: async (p) => (check('stat', p), base.stat(p)),
    mkdir: async (p) => (check('mkdir', p), base.mkdir(p)),
    unlink: async (p) => (check('unlink', p), base.unlink(p)),
    readdir: async (p) => (check('readdir', p), base.readdir(p)),
  };
}
