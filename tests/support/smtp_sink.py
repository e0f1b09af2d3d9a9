#!/usr/bin/python3
"""An SMTP receiver for authd's tests, built on Debian's python3-aiosmtpd.

Listens on 127.0.0.1 (a free port unless --port is given), writes the port to
--port-file once it accepts connections, and stores every accepted message as
<mail-dir>/<n>.eml (written to a temporary name, then renamed), with the
envelope in Return-Path and Delivered-To lines on top, as a mail delivery
agent would. Optional: STARTTLS with a certificate, required AUTH, a
number of first deliveries answered 451 (a temporary failure) to exercise
authd's retries, recipients refused for good (550 to RCPT TO), and a delay
before each answer to DATA (a slow relay), and a delay between storing a
message and answering its DATA (so that a test can act while authd waits
for the relay's answer to a mail the relay already has). The most
deliveries it ever had in progress at once is kept in
<mail-dir>/../max-concurrent. Runs until SIGTERM or SIGINT.

Run it with /usr/bin/python3: that is the interpreter Debian's aiosmtpd is
installed for.
"""

import argparse
import asyncio
import os
import signal
import ssl

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Mailbox:
    def __init__(self, directory, temporary_failures, refused_recipients, delay_ms, hold_reply):
        self.directory = directory
        self.temporary_failures = temporary_failures
        self.refused_recipients = {r.lower() for r in refused_recipients}
        self.delay = delay_ms / 1000.0
        self.hold_reply = hold_reply
        self.count = 0
        self.in_progress = 0
        self.most_in_progress = 0

    def note_in_progress(self, change):
        self.in_progress += change
        if self.in_progress > self.most_in_progress:
            self.most_in_progress = self.in_progress
            path = os.path.join(self.directory, "..", "max-concurrent")
            with open(path + ".tmp", "w") as out:
                out.write("{}\n".format(self.most_in_progress))
            os.rename(path + ".tmp", path)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refused_recipients:
            return "550 5.1.1 No such user here (test sink)"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        self.note_in_progress(+1)
        try:
            if self.delay > 0:
                await asyncio.sleep(self.delay)
            return await self.answer_DATA(envelope)
        finally:
            self.note_in_progress(-1)

    async def answer_DATA(self, envelope):
        if self.temporary_failures > 0:
            self.temporary_failures -= 1
            return "451 4.3.0 Try again later (test sink)"
        self.count += 1
        head = "Return-Path: <{}>\r\n".format(envelope.mail_from)
        head += "".join("Delivered-To: {}\r\n".format(r) for r in envelope.rcpt_tos)
        data = head.encode() + envelope.original_content
        name = os.path.join(self.directory, "{:06d}.eml".format(self.count))
        with open(name + ".tmp", "wb") as out:
            out.write(data)
        os.rename(name + ".tmp", name)
        if self.hold_reply > 0:
            await asyncio.sleep(self.hold_reply)
        return "250 2.0.0 OK"


def authenticator_for(expected):
    user, _, password = expected.partition(":")

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login.decode() == user
              and auth_data.password.decode() == password)
        return AuthResult(success=ok, handled=False)

    return authenticate


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mail-dir", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert", help="offer STARTTLS with this certificate")
    parser.add_argument("--tls-key")
    parser.add_argument("--auth", metavar="USER:PASSWORD", help="require this login")
    parser.add_argument("--fail-first", type=int, default=0,
                        help="answer 451 to this many deliveries first")
    parser.add_argument("--refuse-recipient", action="append", default=[], metavar="ADDRESS",
                        help="answer 550 to RCPT TO for this address (repeatable)")
    parser.add_argument("--delay-ms", type=int, default=0,
                        help="wait this long before answering each message (a slow relay)")
    parser.add_argument("--hold-reply", type=float, default=0, metavar="SECONDS",
                        help="store each message, then wait this long before answering 250")
    args = parser.parse_args()

    os.makedirs(args.mail_dir, exist_ok=True)
    mailbox = Mailbox(args.mail_dir, args.fail_first, args.refuse_recipient, args.delay_ms,
                      args.hold_reply)
    tls = None
    if args.tls_cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    options = dict(tls_context=tls, require_starttls=tls is not None)
    if args.auth:
        options.update(authenticator=authenticator_for(args.auth), auth_required=True,
                       auth_require_tls=tls is not None)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(mailbox, **options), "127.0.0.1", args.port)
    port = server.sockets[0].getsockname()[1]
    with open(args.port_file + ".tmp", "w") as out:
        out.write("{}\n".format(port))
    os.rename(args.port_file + ".tmp", args.port_file)

    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()
    await server.wait_closed()


if __name__ == "__main__":
    asyncio.run(main())
