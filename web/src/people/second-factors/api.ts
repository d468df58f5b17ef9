// The second-factor routes of the API (docs/second-factors.md): a person's passkeys, authenticator app and
// recovery codes, and the sign-ins that use them (a passkey alone; the second step after a password). The browser's
// WebAuthn calls go through @simplewebauthn/browser, which turns the API's options into navigator.credentials calls
// and the answers back into JSON.
import { startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import type { Static } from 'typebox';
import type * as F from '../../../../src/people/second-factor-schemas.ts';
import * as sdk from '../../../../src/client/operations.ts';
import type { Api, ApiClient, Session } from '../../api/client.ts';

export type SecondFactors = Static<typeof F.SecondFactors>;
export type PasskeyView = Static<typeof F.PasskeyView>;
export type TotpEnrolment = Static<typeof F.TotpEnrolment>;
/** What a right password answers when a second step is due. */
export type SecondFactorStep = Static<typeof F.SecondFactorStep>['secondFactor'];
export type StepMethod = SecondFactorStep['methods'][number];

type Options<K extends 'create' | 'get'> = K extends 'create'
  ? Parameters<typeof startRegistration>[0]['optionsJSON']
  : Parameters<typeof startAuthentication>[0]['optionsJSON'];

export async function getSecondFactors(api: Api, signal?: AbortSignal): Promise<SecondFactors> {
  const { data } = await sdk.getAuthSecondFactors({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data;
}

/** Registers a passkey of this device (the browser asks the person), named `name`; recovery codes with the first factor. */
export async function addPasskey(api: Api, name: string): Promise<{ passkey: PasskeyView; recoveryCodes: string[] | null }> {
  const { data: ceremony } = await sdk.postAuthPasskeysRegistration({ client: api.client, throwOnError: true });
  const registration = await startRegistration({ optionsJSON: webAuthnOptions<'create'>(ceremony) });
  // The browser's types declare the extension results as an interface, which TypeScript does not take for the
  // schema's open object: the same JSON, as an object of its own.
  const response = { ...registration, clientExtensionResults: { ...registration.clientExtensionResults } };
  const { data } = await sdk.postAuthPasskeys({ client: api.client, throwOnError: true, body: { name, response } });
  return data;
}

export async function removePasskey(api: Api, id: number): Promise<void> {
  await sdk.deleteAuthPasskeysById({ client: api.client, throwOnError: true, path: { id: String(id) } });
}

export async function renamePasskey(api: Api, id: number, name: string): Promise<PasskeyView> {
  const { data } = await sdk.patchAuthPasskeysById({ client: api.client, throwOnError: true, path: { id: String(id) }, body: { name } });
  return data;
}

export async function startTotp(api: Api): Promise<TotpEnrolment> {
  const { data } = await sdk.postAuthTotp({ client: api.client, throwOnError: true });
  return data;
}

export async function confirmTotp(api: Api, code: string): Promise<{ recoveryCodes: string[] | null }> {
  const { data } = await sdk.postAuthTotpConfirm({ client: api.client, throwOnError: true, body: { code } });
  return data;
}

export async function disableTotp(api: Api, proof: F.TotpDisableBody): Promise<void> {
  await sdk.postAuthTotpDisable({ client: api.client, throwOnError: true, body: proof });
}

export async function newRecoveryCodes(api: Api): Promise<string[]> {
  const { data } = await sdk.postAuthRecoveryCodes({ client: api.client, throwOnError: true });
  return data.codes;
}

/** Email and password: a session, or the second step that is due. */
export async function signInWithPassword(api: ApiClient, email: string, password: string): Promise<Session | SecondFactorStep> {
  const answer = await api.startSession(sdk.postAuthSignIn({ client: api.client, throwOnError: true, body: { email, password } }));
  return 'secondFactor' in answer ? answer.secondFactor : answer;
}

/** The second step with a code of the app or a recovery code. */
export function completeWithCode(api: ApiClient, ticket: string, proof: { code: string } | { recoveryCode: string }): Promise<Session> {
  return api.startSession(sdk.postAuthSignInSecondFactor({ client: api.client, throwOnError: true, body: { ticket, ...proof } }));
}

/**
 * The options of a WebAuthn ceremony, as @simplewebauthn/server made them: the API's schema names only their
 * challenge and leaves the rest to WebAuthn's own definition, which @simplewebauthn/browser types.
 */
function webAuthnOptions<K extends 'create' | 'get'>(ceremony: { options: { challenge: string } }): Options<K> {
  return ceremony.options as Options<K>;
}

/** A passkey's assertion, for a sign-in with it alone (no ticket) or as the second step of `ticket`. */
async function assertion(api: Api, ticket?: string) {
  const body = ticket === undefined ? {} : { ticket };
  const { data } = await sdk.postAuthPasskeyOptions({ client: api.client, throwOnError: true, body });
  const answer = await startAuthentication({ optionsJSON: webAuthnOptions<'get'>(data) });
  // As for a registration (addPasskey): the extension results as an object of their own.
  return { ...answer, clientExtensionResults: { ...answer.clientExtensionResults } };
}

export async function signInWithPasskey(api: ApiClient): Promise<Session> {
  const response = await assertion(api);
  return api.startSession(sdk.postAuthPasskeySignIn({ client: api.client, throwOnError: true, body: { response } }));
}

export async function completeWithPasskey(api: ApiClient, ticket: string): Promise<Session> {
  const passkey = await assertion(api, ticket);
  return api.startSession(sdk.postAuthSignInSecondFactor({ client: api.client, throwOnError: true, body: { ticket, passkey } }));
}

/** The browser's own refusal of a passkey ceremony (the person cancelled, the time ran out), said for people; null for another error. */
export function passkeyProblem(error: unknown): string | null {
  if (error instanceof WebAuthnError || (error instanceof DOMException && error.name === 'NotAllowedError')) {
    if (
      error.name === 'InvalidStateError' ||
      (error instanceof WebAuthnError && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED')
    )
      return 'This device’s passkey is registered already.';
    return 'The passkey was not used: the request was cancelled or timed out. Try again.';
  }
  return null;
}
