import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './codeServer';

export interface InstallableExtension {
  from: string;
  id: string;
  version: string;
  files: string[];
}

/** Our extension as an installed (not development-mode) extension: the files a .vsix would carry. */
export function ownExtension(): InstallableExtension {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  return { from: ROOT, id: `${manifest.publisher}.${manifest.name}`, version: manifest.version, files: ['package.json', 'dist', 'media', 'README.md', 'LICENSE'] };
}

/** Test-only extensions: test/fixtures/extensions/<name>/package.json + out/test/fixtures/extensions/<name>/*.js */
export function fixtureExtensions(): InstallableExtension[] {
  const src = join(ROOT, 'test', 'fixtures', 'extensions');
  if (!existsSync(src)) return [];
  const out: InstallableExtension[] = [];
  for (const name of readdirSync(src)) {
    const manifestPath = join(src, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { publisher: string; name: string; version: string };
    const staged = join(ROOT, 'test-results', 'fixture-extensions', name);
    rmSync(staged, { recursive: true, force: true });
    mkdirSync(staged, { recursive: true });
    cpSync(manifestPath, join(staged, 'package.json'));
    const compiled = join(ROOT, 'out', 'test', 'fixtures', 'extensions', name);
    if (existsSync(compiled)) cpSync(compiled, staged, { recursive: true });
    out.push({ from: staged, id: `${manifest.publisher}.${manifest.name}`, version: manifest.version, files: readdirSync(staged) });
  }
  return out;
}


/** Copies an extension's files into an extensions dir as `<id>-<version>/` (how code-server and VS Code find it). */
export function copyExtension(ext: InstallableExtension, extensionsDir: string): void {
  const target = join(extensionsDir, `${ext.id}-${ext.version}`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const f of ext.files) {
    const src = join(ext.from, f);
    if (existsSync(src)) cpSync(src, join(target, f), { recursive: true });
  }
}
