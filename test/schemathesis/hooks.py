"""Schemathesis hooks for test/schemathesis/run.sh: each operation gets the key its tag names.

The `ApiKey` scheme is the `Authorization` header holding the bare key. Operations tagged `SDK`
take the app's SDK key (SCHEMATHESIS_SDK_KEY); those tagged `Dashboard` take a signed-in
admin's session cookie and its CSRF header (SCHEMATHESIS_SESSION_COOKIE, SCHEMATHESIS_CSRF),
but for the session routes themselves, where signing out would end the session the others use;
every other operation takes the server key (SCHEMATHESIS_SERVER_KEY); the public document's own
route ignores the header. Nothing expires during a run, so nothing is cached or fetched again on
a 401: a 401 is an answer under test (negative cases drop the header).

The run's own app (SCHEMATHESIS_APP_ID) keeps its keys and settings to the end: the session may
change any app, and Schemathesis reads key ids from the listings, so it would otherwise revoke
the keys the rest of the run sends, or switch the app off, after which every operation tested
later only ever gets the 401. A call that would change that app or revoke one of its keys is
sent to a spare app instead (SCHEMATHESIS_SPARE_APP_ID), which the same route changes as well,
or answers that it has no key with that id.

Likewise the run's own person (SCHEMATHESIS_EMAIL) keeps their password and record: a call that
would reset it (which ends the session the run sends) or remove them is sent about a person
who does not exist instead, which the route answers with its 404.
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


@schemathesis.hook
def before_call(context, case, kwargs):
    parameters = case.path_parameters or {}
    email = parameters.get("email")
    if isinstance(email, str) and email.strip().lower() == os.environ["SCHEMATHESIS_EMAIL"]:
        case.path_parameters = {**parameters, "email": "nobody@schemathesis.example"}
        parameters = case.path_parameters
    if case.method.upper() not in ("PATCH", "DELETE", "PUT"):
        return
    if parameters.get("app_id") == os.environ["SCHEMATHESIS_APP_ID"]:
        case.path_parameters = {**parameters, "app_id": os.environ["SCHEMATHESIS_SPARE_APP_ID"]}
