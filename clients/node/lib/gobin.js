// goBinary returns the path of a Go command of this repository for the
// client and browser tests: the prebuilt one in RAGCHAT_TEST_BIN_DIR when
// that directory has it (scripts/test.sh builds ragchat and the test tools
// there once, so that each test process does not link its own copy), else
// one built with `go build` into a temporary directory, once per process
// and package, removed when the process exits.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');
const built = new Map();

/** goBinary('./internal/tools/fakemodel') is the path of a fakemodel binary. */
export function goBinary(pkg) {
  const name = basename(pkg);
  const dir = process.env.RAGCHAT_TEST_BIN_DIR;
  if (dir && existsSync(join(dir, name))) return join(dir, name);
  if (!built.has(pkg)) {
    const tmp = mkdtempSync(join(tmpdir(), `ragchat-${name}-bin-`));
    const bin = join(tmp, name);
    execFileSync('go', ['build', '-o', bin, pkg], { cwd: repo, stdio: 'inherit' });
    process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));
    built.set(pkg, bin);
  }
  return built.get(pkg);
}
