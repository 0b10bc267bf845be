"""Schemathesis hooks for test/schemathesis/run.sh: each operation gets the key its tag names.

The `ApiKey` scheme is the `Authorization` header holding the bare key. Operations tagged `SDK`
take the app's SDK key (SCHEMATHESIS_SDK_KEY); those tagged `Dashboard` take a signed-in
admin's session cookie and its CSRF header (SCHEMATHESIS_SESSION_COOKIE, SCHEMATHESIS_CSRF),
but for the session routes themselves, where signing out would end the session the others use;
every other operation takes the server key (SCHEMATHESIS_SERVER_KEY); the public document's own
route ignores the header. Nothing expires during a run, so nothing is cached or fetched again on
a 401: a 401 is an answer under test (negative cases drop the header).
"""

import os

import schemathesis


class _Key:
    variable = ""

    def get(self, case, context):
        return os.environ[self.variable]

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = data


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(tag="SDK")
class SdkKey(_Key):
    variable = "SCHEMATHESIS_SDK_KEY"


@schemathesis.auth(refresh_interval=None, retry_on=[]).skip_for(tag="SDK").skip_for(
    tag="Dashboard"
)
class ServerKey(_Key):
    variable = "SCHEMATHESIS_SERVER_KEY"


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(tag="Dashboard").skip_for(
    path="/v1/session"
)
class Session:
    def get(self, case, context):
        return (os.environ["SCHEMATHESIS_SESSION_COOKIE"], os.environ["SCHEMATHESIS_CSRF"])

    def set(self, case, data, context):
        cookie, csrf = data
        case.headers = case.headers or {}
        case.headers["Cookie"] = cookie
        case.headers["X-CSRF-Token"] = csrf
