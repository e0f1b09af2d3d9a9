// Apache httpd with Debian's mod_auth_openidc, as the interoperability
// tests run it (interface.md 17.14): a relying party signing users in, or a
// resource server checking access tokens. One foreground process (-X) in a
// directory of its own under the run's work directory; the pages are
// server-side includes that print what the module handed them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { log, startProcess, waitForHttp, workDir } from './support.mjs';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const LOADED = {
  mpm_event_module: 'mod_mpm_event.so',
  authn_core_module: 'mod_authn_core.so',
  authz_core_module: 'mod_authz_core.so',
  authz_user_module: 'mod_authz_user.so',
  include_module: 'mod_include.so',
  auth_openidc_module: 'mod_auth_openidc.so'
};

// The server's part of httpd.conf: modules, paths, logs, the document root
// with includes, and a fresh OIDCCryptoPassphrase. Apache started by root
// serves as www-data (Debian's user for it).
function serverConfig(dir, port) {
  const runAs = process.getuid() === 0 ? 'User www-data\nGroup www-data\n' : '';
  return `${Object.entries(LOADED).map(([name, file]) => `LoadModule ${name} ${MODULES}/${file}`).join('\n')}
ServerRoot "${dir}"
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile "${dir}/apache.pid"
DefaultRuntimeDir "${dir}/run"
ErrorLog "${dir}/error.log"
LogLevel warn auth_openidc:info
${runAs}DocumentRoot "${dir}/htdocs"
<Directory "${dir}/htdocs">
  Options +Includes
  Require all granted
</Directory>

OIDCCryptoPassphrase ${crypto.randomBytes(32).toString('hex')}
`;
}

// Starts Apache in workDir/`name` on `port`: `pages` ({path under htdocs:
// content}) readable by www-data, down to the directories, and the
// module's part of the configuration, `oidcConfig`, after the server's
// (the file with the secrets stays 0600: root reads it before it switches).
// Resolves to {base, handle, errorLog}.
export async function startApache(name, port, pages, oidcConfig) {
  fs.chmodSync(workDir, 0o711);
  const dir = path.join(workDir, name);
  fs.mkdirSync(path.join(dir, 'run'), { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  for (const [page, content] of Object.entries(pages)) {
    const file = path.join(dir, 'htdocs', page);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    for (let folder = path.dirname(file); folder.startsWith(dir) && folder !== dir; folder = path.dirname(folder))
      fs.chmodSync(folder, 0o755);
    fs.writeFileSync(file, content, { mode: 0o644 });
  }
  const conf = path.join(dir, 'httpd.conf');
  fs.writeFileSync(conf, serverConfig(dir, port) + oidcConfig, { mode: 0o600 });
  const handle = startProcess(`apache ${name}`, APACHE, ['-X', '-d', dir, '-f', conf]);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(handle, `${base}/`);
  log(`apache (${name}) on`, base);
  return { base, handle, errorLog: path.join(dir, 'error.log') };
}

// What Apache logged so far, for a failing check's message.
export function apacheErrors(apache) {
  try {
    return fs.readFileSync(apache.errorLog, 'utf8');
  } catch {
    return '';
  }
}
