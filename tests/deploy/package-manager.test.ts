import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The README's commands work with whichever pnpm people have: 10 (10.26+), 11 and 12 install this
 * workspace from the committed lockfile without changing it (no `packageManager` pin for pnpm 11+
 * to download, every dependency build script reviewed in pnpm-workspace.yaml's `allowBuilds`).
 * Each major is fetched from the npm registry into a cache directory and run on a copy of the
 * workspace's manifests and lockfile.
 */

const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(os.tmpdir(), 'parley-pnpm-versions');

function pnpmBinary(major: number): string {
  const prefix = path.join(CACHE, String(major));
  const bin = path.join(prefix, 'node_modules', '.bin', 'pnpm');
  if (!fs.existsSync(bin)) {
    execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `pnpm@${major}`], { stdio: 'ignore', timeout: 180_000 });
  }
  return bin;
}

function workspaceCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pm-'));
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /(^|\/)package\.json$/.test(f) || f === 'pnpm-workspace.yaml' || f === 'pnpm-lock.yaml');
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    // The working tree's copy, so a change under review is what is checked.
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  return dir;
}

describe.each([10, 12])('pnpm %i', (major) => {
  it('when it installs the workspace with --frozen-lockfile, then it succeeds and leaves the lockfile as committed', () => {
    const pnpm = pnpmBinary(major);
    const dir = workspaceCopy();
    try {
      const lockBefore = fs.readFileSync(path.join(dir, 'pnpm-lock.yaml'), 'utf8');
      const run = spawnSync(pnpm, ['install', '--frozen-lockfile'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 300_000,
        env: { ...process.env, CI: 'true', npm_config_strict_dep_builds: undefined, COREPACK_ENABLE_STRICT: '0' },
      });
      const version = execFileSync(pnpm, ['--version'], { encoding: 'utf8' }).trim();
      expect(version.split('.')[0]).toBe(String(major));
      expect({ status: run.status, out: run.status === 0 ? '' : `${run.stdout}\n${run.stderr}` }).toEqual({ status: 0, out: '' });
      expect(fs.readFileSync(path.join(dir, 'pnpm-lock.yaml'), 'utf8')).toBe(lockBefore);
      expect(fs.existsSync(path.join(dir, 'node_modules', '.pnpm'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
