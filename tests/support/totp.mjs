// TOTP codes (RFC 6238, interface.md 12.3) for the tests that play an
// authenticator app. oathtool computes them, so no test computes a code of
// its own.
import { execFileSync } from 'node:child_process';

const STEP_SECONDS = 30;

export function currentStep() {
  return Math.floor(Date.now() / 1000 / STEP_SECONDS);
}

// The code of `step` (a count of 30-second steps since the epoch).
export function totp(secret, step = currentStep()) {
  return execFileSync('oathtool', ['--totp', '--base32', secret, '--now', `@${step * STEP_SECONDS}`])
    .toString()
    .trim();
}

// A code the server accepts now for an account whose last accepted step is
// `lastAccepted`: the step after it, or the current step once time has gone
// past that one. A test that waits between the enrolment and the sign-in
// (a browser's launch, a mail) would otherwise send a step that has left
// the window of one step each side.
export function codeAfter(secret, lastAccepted) {
  return totp(secret, Math.max(lastAccepted + 1, currentStep()));
}
