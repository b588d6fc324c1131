"""A tiny OpenID Connect provider on 127.0.0.1 standing in for huggingface.co's, for Gradio's OAuth on a
Space (gradio/oauth.py registers it through authlib from OPENID_PROVIDER_URL + /.well-known/openid-configuration).

- GET  /.well-known/openid-configuration   issuer, endpoints, RS256
- GET  /oauth/authorize                    the user "consents" at once: 302 to redirect_uri with code + state
                                           (the user is `login_as`, or ?login_hint=NAME)
- POST /oauth/token                        authorization_code grant, client id/secret checked (basic or post);
                                           returns access_token + an RS256 id_token carrying the nonce
- GET  /oauth/userinfo                     Bearer access token -> profile
- GET  /oauth/jwks                         the public signing key
Hugging Face's claims: sub, name, preferred_username, profile, picture.
"""
from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from joserfc import jwt
from joserfc.jwk import RSAKey


class FakeOpenID:
    def __init__(self, client_id: str = "space-client", client_secret: str = "space-secret",
                 login_as: str = "alice"):
        self.client_id, self.client_secret, self.login_as = client_id, client_secret, login_as
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.codes: dict[str, dict] = {}
        self.access_tokens: dict[str, str] = {}
        self.logins: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeOpenID":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def profile(self, user: str) -> dict:
        return {"sub": f"id-{user}", "name": user.title(), "preferred_username": user,
                "profile": f"https://huggingface.co/{user}", "picture": "", "website": ""}


def _handler(provider: FakeOpenID):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms wait for an ACK

        def log_message(self, *args):
            pass

        def _json(self, status: int, obj) -> None:
            body = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                return self._json(200, {
                    "issuer": provider.url, "authorization_endpoint": f"{provider.url}/oauth/authorize",
                    "token_endpoint": f"{provider.url}/oauth/token", "userinfo_endpoint": f"{provider.url}/oauth/userinfo",
                    "jwks_uri": f"{provider.url}/oauth/jwks", "response_types_supported": ["code"],
                    "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256"],
                    "scopes_supported": ["openid", "profile", "read-repos", "write-repos", "inference-api"],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]})
            if url.path == "/oauth/jwks":
                return self._json(200, {"keys": [provider.key.as_dict(private=False)]})
            if url.path == "/oauth/authorize":
                if query.get("client_id") != provider.client_id or query.get("response_type") != "code":
                    return self._json(400, {"error": "invalid_request"})
                user = query.get("login_hint") or provider.login_as
                code = secrets.token_urlsafe(16)
                provider.codes[code] = {"user": user, "nonce": query.get("nonce"), "scope": query.get("scope", ""),
                                        "redirect_uri": query["redirect_uri"]}
                provider.logins.append(user)
                sep = "&" if "?" in query["redirect_uri"] else "?"
                target = query["redirect_uri"] + sep + urlencode({"code": code, "state": query.get("state", "")})
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if url.path == "/oauth/userinfo":
                token = self.headers.get("Authorization", "")[7:]
                user = provider.access_tokens.get(token)
                return self._json(200, provider.profile(user)) if user else self._json(401, {"error": "invalid_token"})
            self._json(404, {"error": "not found"})

        def do_POST(self):
            if urlsplit(self.path).path != "/oauth/token":
                return self._json(404, {"error": "not found"})
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            client_id, client_secret = form.get("client_id"), form.get("client_secret")
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                client_id, _, client_secret = base64.b64decode(auth[6:]).decode().partition(":")
            if (client_id, client_secret) != (provider.client_id, provider.client_secret):
                return self._json(401, {"error": "invalid_client"})
            grant = provider.codes.pop(form.get("code", ""), None)
            if grant is None or form.get("grant_type") != "authorization_code" \
                    or form.get("redirect_uri") != grant["redirect_uri"]:
                return self._json(400, {"error": "invalid_grant"})
            access = "hf_oauth_" + secrets.token_urlsafe(16)
            provider.access_tokens[access] = grant["user"]
            now = int(time.time())
            claims = {**provider.profile(grant["user"]), "iss": provider.url, "aud": provider.client_id,
                      "iat": now, "exp": now + 3600, "auth_time": now}
            if grant["nonce"]:
                claims["nonce"] = grant["nonce"]
            id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, provider.key)
            self._json(200, {"access_token": access, "token_type": "bearer", "expires_in": 3600,
                             "scope": grant["scope"], "id_token": id_token})

    return Handler
