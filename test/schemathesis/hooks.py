"""Schemathesis hooks for test/schemathesis/run.sh: each operation gets the key its tag names.

The document's one security scheme, `ApiKey`, is the `Authorization` header holding the bare
key. Operations tagged `SDK` take the app's SDK key (SCHEMATHESIS_SDK_KEY); every other
operation takes its server key (SCHEMATHESIS_SERVER_KEY); the public document's own route
ignores the header. The keys never expire, so nothing is cached or fetched again on a 401:
a 401 is an answer under test (negative cases drop the header).
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


@schemathesis.auth(refresh_interval=None, retry_on=[]).skip_for(tag="SDK")
class ServerKey(_Key):
    variable = "SCHEMATHESIS_SERVER_KEY"
