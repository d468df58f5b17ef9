// The second-factor routes of the API (docs/second-factors.md): a person's passkeys, authenticator app and
// recovery codes, and the sign-ins that use them (a passkey alone; the second step after a password). The browser's
// WebAuthn calls go through @simplewebauthn/browser, which turns the API's options into navigator.credentials calls
// and the answers back into JSON.
import { startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import type { Static } from 'typebox';
import type * as F from '../../../../src/people/second-factor-schemas.ts';
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

export function getSecondFactors(api: Api, signal?: AbortSignal): Promise<SecondFactors> {
  return api.request<SecondFactors>('/auth/second-factors', { signal });
}

/** Registers a passkey of this device (the browser asks the person), named `name`; recovery codes with the first factor. */
export async function addPasskey(api: Api, name: string): Promise<{ passkey: PasskeyView; recoveryCodes: string[] | null }> {
  const { options } = await api.request<{ options: Options<'create'> }>('/auth/passkeys/registration', { method: 'POST' });
  const response = await startRegistration({ optionsJSON: options });
  return api.request('/auth/passkeys', { method: 'POST', json: { name, response } });
}

export function removePasskey(api: Api, id: number): Promise<void> {
  return api.request<void>(`/auth/passkeys/${id}`, { method: 'DELETE' });
}

export function renamePasskey(api: Api, id: number, name: string): Promise<PasskeyView> {
  return api.request<PasskeyView>(`/auth/passkeys/${id}`, { method: 'PATCH', json: { name } satisfies F.PasskeyRenameBody });
}

export function startTotp(api: Api): Promise<TotpEnrolment> {
  return api.request<TotpEnrolment>('/auth/totp', { method: 'POST' });
}

export function confirmTotp(api: Api, code: string): Promise<{ recoveryCodes: string[] | null }> {
  return api.request('/auth/totp/confirm', { method: 'POST', json: { code } satisfies F.CodeBody });
}

export function disableTotp(api: Api, proof: F.TotpDisableBody): Promise<void> {
  return api.request<void>('/auth/totp/disable', { method: 'POST', json: proof });
}

export async function newRecoveryCodes(api: Api): Promise<string[]> {
  return (await api.request<{ codes: string[] }>('/auth/recovery-codes', { method: 'POST' })).codes;
}

/** Email and password: a session, or the second step that is due. */
export async function signInWithPassword(api: ApiClient, email: string, password: string): Promise<Session | SecondFactorStep> {
  const answer = await api.startSession<Session | Static<typeof F.SecondFactorStep>>('/auth/sign-in', { email, password });
  return 'secondFactor' in answer ? answer.secondFactor : answer;
}

/** The second step with a code of the app or a recovery code. */
export function completeWithCode(api: ApiClient, ticket: string, proof: { code: string } | { recoveryCode: string }): Promise<Session> {
  return api.startSession('/auth/sign-in/second-factor', { ticket, ...proof });
}

/** A passkey's assertion, for a sign-in with it alone (no ticket) or as the second step of `ticket`. */
async function assertion(api: Api, ticket?: string) {
  const { options } = await api.request<{ options: Options<'get'> }>('/auth/passkey/options', {
    method: 'POST',
    json: (ticket === undefined ? {} : { ticket }) satisfies F.PasskeySignInOptionsBody,
    signedOutHandler: false,
  });
  return startAuthentication({ optionsJSON: options });
}

export async function signInWithPasskey(api: ApiClient): Promise<Session> {
  return api.startSession('/auth/passkey/sign-in', { response: await assertion(api) });
}

export async function completeWithPasskey(api: ApiClient, ticket: string): Promise<Session> {
  return api.startSession('/auth/sign-in/second-factor', { ticket, passkey: await assertion(api, ticket) });
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
