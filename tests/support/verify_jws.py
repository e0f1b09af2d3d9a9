#!/usr/bin/env python3
"""Verifies compact JWS against a JWKS with python3-jwcrypto, a JOSE
implementation independent of authd's (libcjose): the signatures of
interface.md 17.12, checked as a relying party checks an ID token.

Usage: verify_jws.py JWKS_FILE TOKENS_FILE
TOKENS_FILE holds one compact JWS per line. For each, prints one line:
"ok <alg> <kid> <payload>" when the key named by the header's kid in the
JWKS verifies it under the header's alg (RS256 or ES256 only), else
"bad <reason>". Exit status 0 when every token verified, 1 otherwise, 3
when jwcrypto is missing.
"""
import json
import sys

try:
    from jwcrypto import jwk, jws
except ImportError:
    sys.exit(3)


def verify(keys, token):
    signed = jws.JWS()
    signed.deserialize(token)
    header = signed.jose_header
    alg = header.get("alg")
    if alg not in ("RS256", "ES256"):
        return "bad alg " + str(alg)
    key = keys.get_key(header.get("kid"))
    if key is None:
        return "bad unknown kid"
    exported = json.loads(key.export_public())
    if exported.get("alg") not in (None, alg):
        return "bad key alg"
    try:
        signed.verify(key, alg=alg)
    except Exception as error:  # jwcrypto raises InvalidJWSSignature
        return "bad " + type(error).__name__
    return "ok %s %s %s" % (alg, header.get("kid"), signed.payload.decode())


def main():
    with open(sys.argv[1]) as jwks_file:
        keys = jwk.JWKSet.from_json(jwks_file.read())
    all_ok = True
    with open(sys.argv[2]) as tokens:
        for line in tokens:
            token = line.strip()
            if not token:
                continue
            try:
                result = verify(keys, token)
            except Exception as error:
                result = "bad " + type(error).__name__
            all_ok = all_ok and result.startswith("ok ")
            print(result)
    sys.exit(0 if all_ok else 1)


main()
