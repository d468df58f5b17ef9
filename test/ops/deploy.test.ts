// The deployment files (deploy/, docker-compose.yml, .dockerignore), checked offline: no Docker engine
// or cluster runs here. Kubernetes objects are validated against the Kubernetes JSON schemas that
// kubernetes-models ships; every environment value is run through the service's own loadConfig; the
// rest are the promises deploy/README.md makes. Each checker returns its problems, so that the tests
// can also show it rejecting a broken copy.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job, type IJob } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget, type IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  Secret,
  Service,
  type IConfigMap,
  type IContainer,
  type IPodSpec,
  type IProbe,
  type ISecret,
  type IService,
} from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig, SETTINGS } from '../../src/config/config.ts';

const root = new URL('../../', import.meta.url);
const readText = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const K8S_DIR = 'deploy/k8s/';
const K8S_FILES = ['configmap.yaml', 'secret.yaml', 'deployment.yaml', 'service.yaml', 'hpa.yaml', 'pdb.yaml', 'migrate-job.yaml'];
const SERVER_COMMAND = ['node', '--max-semi-space-size=8', 'src/process/main.ts'];
const MIGRATE_COMMAND = ['node', 'scripts/migrate.ts'];

// ---------------------------------------------------------------------------------------------
// Reading

/** The variables src/config/config.ts reads: every `read('NAME'` (generic or not) and `env.NAME`. */
function configVariables(): ReadonlySet<string> {
  return new Set(Object.values(SETTINGS).map((setting) => setting.env));
}

interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata?: { readonly name?: string };
}

// One schema-backed model per kind the manifests may hold; any other kind is a mistake.
const MODELS: Readonly<Record<string, (data: never) => { validate(): void }>> = {
  'v1/ConfigMap': (data) => new ConfigMap(data),
  'v1/Secret': (data) => new Secret(data),
  'v1/Service': (data) => new Service(data),
  'apps/v1/Deployment': (data) => new Deployment(data),
  'batch/v1/Job': (data) => new Job(data),
  'autoscaling/v2/HorizontalPodAutoscaler': (data) => new HorizontalPodAutoscaler(data),
  'policy/v1/PodDisruptionBudget': (data) => new PodDisruptionBudget(data),
};

/** Throws unless the object is of a known kind and valid against its Kubernetes schema. */
function validateKube(object: KubeObject): void {
  const model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (model === undefined) throw new Error(`${object.apiVersion} ${object.kind}: not a kind these manifests may hold`);
  model(object as never).validate();
}

function parseYaml(text: string, file: string): unknown[] {
  const documents = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document) => {
    assert.deepEqual(document.errors, [], `${file}: YAML errors`);
    return document.toJS() as unknown;
  });
}

function loadManifests() {
  const objects = new Map<string, KubeObject>();
  for (const file of K8S_FILES) {
    for (const object of parseYaml(readText(K8S_DIR + file), file) as KubeObject[]) {
      objects.set(`${object.kind}/${object.metadata?.name ?? ''}`, object);
    }
  }
  const get = (key: string): unknown => {
    const object = objects.get(key);
    assert.ok(object !== undefined, `${key} is in deploy/k8s/`);
    return object;
  };
  return {
    objects,
    configMap: get('ConfigMap/shortener') as IConfigMap,
    secret: get('Secret/shortener') as ISecret,
    deployment: get('Deployment/shortener') as IDeployment,
    service: get('Service/shortener') as IService,
    hpa: get('HorizontalPodAutoscaler/shortener') as IHorizontalPodAutoscaler,
    pdb: get('PodDisruptionBudget/shortener') as IPodDisruptionBudget,
    job: get('Job/shortener-migrate') as IJob,
  };
}
type Manifests = ReturnType<typeof loadManifests>;

/** What a Secret gives a pod, as Kubernetes merges it: `data` (base64) with `stringData` over it. */
function secretValues(secret: ISecret): Record<string, string> {
  const decoded = Object.entries(secret.data ?? {}).map(([name, value]) => [name, Buffer.from(value, 'base64').toString('utf8')]);
  return { ...Object.fromEntries(decoded), ...secret.stringData };
}

/** The environment a pod gets: its envFrom ConfigMap and Secret, then its env entries. */
function podEnvironment(container: IContainer, m: Manifests): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef?.name === m.configMap.metadata?.name) Object.assign(env, m.configMap.data);
    else if (source.secretRef?.name === m.secret.metadata?.name) Object.assign(env, secretValues(m.secret));
    else throw new Error(`envFrom ${JSON.stringify(source)} names no ConfigMap or Secret of deploy/k8s/`);
  }
  for (const entry of container.env ?? []) env[entry.name] = entry.value ?? '';
  return env;
}

/** Problems of an environment: names src/config/config.ts does not read, values loadConfig refuses. */
function environmentProblems(where: string, env: Readonly<Record<string, string>>, known: ReadonlySet<string>): string[] {
  const problems = Object.keys(env)
    .filter((name) => !known.has(name))
    .map((name) => `${where}: ${name} is not a variable of src/config/config.ts`);
  try {
    loadConfig(env);
  } catch (err) {
    problems.push(`${where}: ${(err as Error).message}`);
  }
  return problems;
}

/**
 * Problems of the Secret: its values are placeholders a reader can see as such, so it holds them
 * in `stringData`, each marked, and nothing in base64 `data`, where no one would notice a real one.
 */
function secretProblems(secret: ISecret): string[] {
  const problems: string[] = [];
  if (Object.keys(secret.data ?? {}).length > 0)
    problems.push(`the Secret has data (${Object.keys(secret.data ?? {}).join(', ')}), not stringData`);
  const values = Object.entries(secret.stringData ?? {});
  if (values.length === 0) problems.push('the Secret has no stringData');
  for (const [name, value] of values) {
    if (!/CHANGE-ME|example/.test(value)) problems.push(`the Secret's ${name} is not marked as a placeholder`);
  }
  return problems;
}

const onlyContainer = (spec: IPodSpec | undefined, what: string): IContainer => {
  assert.equal(spec?.containers.length, 1, `${what} has one container`);
  const container = spec.containers[0];
  assert.ok(container !== undefined);
  return container;
};

// ---------------------------------------------------------------------------------------------
// Kubernetes promises

function probeProblems(name: string, probe: IProbe | undefined, path: string, container: IContainer): string[] {
  if (probe === undefined) return [`${name} is missing`];
  const problems: string[] = [];
  if (probe.httpGet?.path !== path) problems.push(`${name} asks ${probe.httpGet?.path ?? 'nothing'}, not ${path}`);
  const port = probe.httpGet?.port;
  const containerPort = container.ports?.find((p) => p.name === port || p.containerPort === port);
  if (containerPort === undefined) problems.push(`${name} port ${String(port)} is not a port of the container`);
  return problems;
}

function securityProblems(where: string, pod: IPodSpec | undefined, container: IContainer): string[] {
  const problems: string[] = [];
  const c = container.securityContext;
  const p = pod?.securityContext;
  if ((c?.runAsNonRoot ?? p?.runAsNonRoot) !== true) problems.push(`${where}: runAsNonRoot is not true`);
  if ((c?.runAsUser ?? p?.runAsUser ?? 0) === 0)
    problems.push(`${where}: no numeric non-root runAsUser (the kubelet cannot check a user name)`);
  if (c?.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
  if (c?.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
  if (!(c?.capabilities?.drop ?? []).includes('ALL')) problems.push(`${where}: capabilities do not drop ALL`);
  if ((c?.seccompProfile?.type ?? p?.seccompProfile?.type) !== 'RuntimeDefault')
    problems.push(`${where}: seccompProfile is not RuntimeDefault`);
  if (container.resources?.requests === undefined || container.resources.limits?.memory === undefined) {
    problems.push(`${where}: resource requests or memory limit missing`);
  }
  return problems;
}

function deploymentProblems(m: Manifests): string[] {
  const problems: string[] = [];
  const pod = m.deployment.spec?.template.spec;
  const container = onlyContainer(pod, 'the Deployment');
  const env = podEnvironment(container, m);
  const command = [...(container.command ?? []), ...(container.args ?? [])];
  if (command.join(' ') !== SERVER_COMMAND.join(' '))
    problems.push(`the Deployment runs ${command.join(' ')}, not ${SERVER_COMMAND.join(' ')}`);

  const port = container.ports?.find((p) => p.name === 'http');
  if (port === undefined || String(port.containerPort) !== (env.PORT ?? '3000')) problems.push('container port http is not PORT');
  if (env.HOST !== '0.0.0.0') problems.push(`HOST is ${env.HOST ?? 'unset'}, not 0.0.0.0`);
  if (env.TRUST_PROXY === undefined || env.TRUST_PROXY === 'false') problems.push('TRUST_PROXY is not set for the pod network');
  // Without it the embedded engine would write to a read-only root file system.
  if (env.DATABASE_URL === undefined) problems.push('DATABASE_URL is unset');

  problems.push(
    ...probeProblems('readinessProbe', container.readinessProbe, '/readyz', container),
    ...probeProblems('livenessProbe', container.livenessProbe, '/healthz', container),
    ...probeProblems('startupProbe', container.startupProbe, '/healthz', container),
    ...securityProblems('the Deployment', pod, container),
  );

  const drainMs = Number(env.READINESS_DRAIN_MS ?? 0);
  const shutdownGraceMs = Number(env.SHUTDOWN_GRACE_MS ?? 10_000);
  const preStop = container.lifecycle?.preStop;
  const preStopMs =
    preStop?.sleep !== undefined
      ? preStop.sleep.seconds * 1000
      : preStop?.exec?.command?.[0] === 'sleep'
        ? Number(preStop.exec.command[1]) * 1000
        : undefined;
  if (preStopMs === undefined || !(preStopMs > 0)) problems.push('no preStop sleep');
  if (!(drainMs > 0)) problems.push('READINESS_DRAIN_MS is 0: /readyz would not fail before the server stops accepting');
  const readiness = container.readinessProbe;
  const noticeMs = (readiness?.periodSeconds ?? 10) * (readiness?.failureThreshold ?? 3) * 1000;
  if (drainMs < noticeMs)
    problems.push(`READINESS_DRAIN_MS ${drainMs} is shorter than the readiness probe takes to notice (${noticeMs} ms)`);
  const graceMs = (pod?.terminationGracePeriodSeconds ?? 30) * 1000;
  const neededMs = (preStopMs ?? 0) + drainMs + shutdownGraceMs;
  if (graceMs <= neededMs)
    problems.push(`terminationGracePeriodSeconds ${graceMs / 1000} s is not above preStop + drain + shutdown grace (${neededMs / 1000} s)`);

  const labels = m.deployment.spec?.template.metadata?.labels ?? {};
  const selects = (selector: Readonly<Record<string, string>> | undefined) =>
    selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  if (!selects(m.deployment.spec?.selector.matchLabels)) problems.push('the Deployment selector misses its own pods');
  if (!selects(m.service.spec?.selector)) problems.push('the Service selector misses the pods');
  if (!selects(m.pdb.spec?.selector?.matchLabels)) problems.push('the PodDisruptionBudget selector misses the pods');
  const servicePorts = m.service.spec?.ports ?? [];
  if (servicePorts.length === 0 || !servicePorts.every((p) => p.targetPort === 'http' || p.targetPort === port?.containerPort)) {
    problems.push('the Service does not target the container port');
  }
  // With an autoscaler, a fixed count in the Deployment would be reset by every apply.
  if (m.deployment.spec?.replicas !== undefined) problems.push('the Deployment sets replicas, which the HPA owns');
  const target = m.hpa.spec?.scaleTargetRef;
  if (target?.kind !== 'Deployment' || target.name !== m.deployment.metadata?.name) problems.push('the HPA does not scale the Deployment');
  if (!(m.hpa.spec?.metrics ?? []).some((metric) => metric.resource?.name === 'cpu')) problems.push('the HPA does not scale on CPU');
  if ((m.hpa.spec?.minReplicas ?? 1) < 2) problems.push('the HPA allows a single replica');
  return problems;
}

function jobProblems(m: Manifests): string[] {
  const problems: string[] = [];
  const pod = m.job.spec?.template.spec;
  const container = onlyContainer(pod, 'the Job');
  const app = onlyContainer(m.deployment.spec?.template.spec, 'the Deployment');
  const command = [...(container.command ?? []), ...(container.args ?? [])];
  if (command.join(' ') !== MIGRATE_COMMAND.join(' ')) problems.push(`the Job runs ${command.join(' ')}, not ${MIGRATE_COMMAND.join(' ')}`);
  if (container.image !== app.image) problems.push(`the Job's image ${container.image ?? ''} is not the Deployment's ${app.image ?? ''}`);
  if (JSON.stringify(container.envFrom) !== JSON.stringify(app.envFrom) || JSON.stringify(container.env) !== JSON.stringify(app.env)) {
    problems.push('the Job and the Deployment do not get the same environment');
  }
  if (pod?.restartPolicy !== 'Never' && pod?.restartPolicy !== 'OnFailure') problems.push('the Job restarts always');
  problems.push(...securityProblems('the Job', pod, container));
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

function parseDockerfile(text: string): Instruction[] {
  return text
    .replace(/\\\r?\n/g, ' ') // line continuations
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

/** Exec form only: a shell form would make /bin/sh PID 1, and SIGTERM would not reach node. */
function execForm(instruction: Instruction | undefined): string[] | undefined {
  if (instruction === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(instruction.args);
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

function dockerfileProblems(text: string): string[] {
  const problems: string[] = [];
  const all = parseDockerfile(text);
  const args = new Map<string, string>();
  for (const i of all) {
    if (i.keyword === 'FROM') break;
    const [name, value] = i.args.split('=');
    if (i.keyword === 'ARG' && name !== undefined && value !== undefined) args.set(name, value);
  }
  const froms = all.filter((i) => i.keyword === 'FROM');
  if (froms.length < 2) problems.push('not a multi-stage build');
  for (const from of froms) {
    const image = (from.args.split(/\s+/)[0] ?? '').replace(/^\$\{(\w+)\}$/, (_, name: string) => args.get(name) ?? '');
    if (!/^node:24[\w.-]*slim(@sha256:[0-9a-f]{64})?$/.test(image)) problems.push(`base image ${image} is not a pinned Node 24 slim image`);
  }
  const finalStart = all.lastIndexOf(froms.at(-1) ?? all[0]!);
  const final = all.slice(finalStart);
  const last = (keyword: string) => final.findLast((i) => i.keyword === keyword);

  const user = last('USER')?.args;
  if (user === undefined || user === 'root' || user === '0' || user.startsWith('0:'))
    problems.push(`the final stage runs as ${user ?? 'root'}`);
  const entrypoint = execForm(last('ENTRYPOINT'));
  const cmd = execForm(last('CMD'));
  if ((last('ENTRYPOINT') !== undefined && entrypoint === undefined) || cmd === undefined) problems.push('ENTRYPOINT/CMD not in exec form');
  const command = [...(entrypoint ?? []), ...(cmd ?? [])];
  if (command.join(' ') !== SERVER_COMMAND.join(' ')) problems.push(`the image runs ${command.join(' ')}, not ${SERVER_COMMAND.join(' ')}`);
  const healthcheck = last('HEALTHCHECK')?.args ?? '';
  if (!/\/(healthz|readyz)/.test(healthcheck)) problems.push('no HEALTHCHECK on /healthz or /readyz');
  if (/\b(curl|wget)\b/.test(healthcheck)) problems.push('the HEALTHCHECK needs a tool the slim image lacks');
  if (!final.some((i) => i.keyword === 'EXPOSE' && i.args.split(/\s+/).includes('3000'))) problems.push('no EXPOSE 3000');
  const env = final
    .filter((i) => i.keyword === 'ENV')
    .map((i) => i.args)
    .join(' ');
  if (!/\bHOST=0\.0\.0\.0\b/.test(env) || !/\bPORT=3000\b/.test(env)) problems.push('ENV HOST=0.0.0.0 PORT=3000 missing');

  // Production dependencies only, installed from the lock file before the sources are copied.
  const copies = all.filter((i) => i.keyword === 'COPY');
  const manifests = copies.findIndex((i) => /package-lock\.json|package\*\.json/.test(i.args));
  const sources = copies.findIndex((i) => /\bsrc\b/.test(i.args));
  if (manifests === -1 || sources === -1 || manifests > sources) problems.push('package*.json is not copied before src/');
  const install = all
    .filter((i) => i.keyword === 'RUN' && /\bnpm (ci|prune)\b/.test(i.args))
    .map((i) => i.args)
    .join(' ');
  if (!/npm ci\b/.test(install) || !/--omit=dev/.test(install)) problems.push('no npm ci with --omit=dev');
  if (!final.some((i) => i.keyword === 'COPY' && /--from=\S+.*node_modules/.test(i.args)))
    problems.push('node_modules is not copied from the install stage');
  for (const path of ['src', 'scripts', 'migrations', 'package.json']) {
    if (!final.some((i) => i.keyword === 'COPY' && i.args.split(/\s+/).includes(path))) problems.push(`${path} is not copied`);
  }
  // The dashboard is built in a stage of its own (Vite is a dev dependency) and only its output is kept.
  if (!final.some((i) => i.keyword === 'COPY' && /--from=\S+\s+\S*dist\/app\s+\S*dist\/app$/.test(i.args))) {
    problems.push('the dashboard (dist/app) is not copied from its build stage');
  }
  if (!all.some((i) => i.keyword === 'RUN' && /vite(\.js)? build/.test(i.args))) problems.push('no stage builds the dashboard');
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Compose

interface ComposeService {
  readonly image?: string;
  readonly build?: { readonly context?: string; readonly dockerfile?: string };
  readonly environment?: Readonly<Record<string, string | number | boolean>>;
  readonly depends_on?: Readonly<Record<string, { readonly condition?: string }>>;
  readonly healthcheck?: { readonly test?: readonly string[] };
  readonly ports?: readonly string[];
  readonly profiles?: readonly string[];
  readonly volumes?: readonly string[];
  readonly stop_grace_period?: string;
  readonly read_only?: boolean;
  readonly networks?: readonly string[] | Readonly<Record<string, { readonly ipv4_address?: string } | null>>;
}
interface Compose {
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes?: Readonly<Record<string, unknown>>;
  readonly networks?: Readonly<Record<string, { readonly ipam?: { readonly config?: readonly { readonly subnet?: string }[] } }>>;
}

/**
 * Compose's `${NAME:-default}`, and `${NAME:?message}` (required: compose refuses to start without it; read
 * here as the operator's own value). A bare `${NAME}` would make `docker compose up` run with it empty.
 */
function interpolate(value: string): string {
  return value.replace(
    /\$\{(\w+)(?::?([-?])([^}]*))?\}/g,
    (whole, name: string, kind: string | undefined, fallback: string | undefined) => {
      if (kind === '?') return `operator-set-${name.toLowerCase()}-value`;
      if (fallback === undefined) throw new Error(`${whole} has no default`);
      return fallback;
    },
  );
}

const isAppService = (service: ComposeService) => service.build?.dockerfile === 'deploy/Dockerfile';

function composeProblems(compose: Compose, known: ReadonlySet<string>, haproxy: string): string[] {
  const problems: string[] = [];
  const { services } = compose;
  const postgres = services.postgres;
  const redis = services.redis;
  if (postgres?.image?.startsWith('postgres:') !== true) problems.push('no official postgres service');
  if (redis?.image?.startsWith('redis:') !== true) problems.push('no official redis service');
  for (const [name, service] of Object.entries(services)) {
    if (service.image !== undefined && !/:[\w.-]+$/.test(service.image)) problems.push(`${name}: image ${service.image} has no tag`);
    if (service.image?.endsWith(':latest') === true) problems.push(`${name}: image pinned to latest`);
  }
  if (!(postgres?.healthcheck?.test ?? []).includes('pg_isready')) problems.push('postgres has no pg_isready healthcheck');
  if (!(redis?.healthcheck?.test ?? []).join(' ').includes('redis-cli ping')) problems.push('redis has no redis-cli ping healthcheck');
  const pgVolume = (postgres?.volumes ?? []).map((v) => v.split(':')[0] ?? '').find((v) => compose.volumes?.[v] !== undefined);
  if (pgVolume === undefined) problems.push('postgres data is not on a named volume');

  const apps = Object.entries(services).filter(([, service]) => isAppService(service));
  const main = apps.filter(([, service]) => service.profiles === undefined);
  const scaled = apps.filter(([, service]) => service.profiles?.includes('scale') === true);
  if (main.length !== 1) problems.push('not exactly one app service outside profiles');
  if (scaled.length < 1) problems.push('the scale profile adds no app instance');
  const app = main[0]?.[1];
  if (!(app?.ports ?? []).some((p) => p.endsWith(':3000'))) problems.push('the app does not publish port 3000');

  const lbEntry = Object.entries(services).find(([, service]) => service.profiles?.includes('scale') === true && !isAppService(service));
  const lb = lbEntry?.[1];
  const lbNetworks = lb?.networks;
  const lbAddress =
    lbNetworks !== undefined && !Array.isArray(lbNetworks)
      ? Object.values(lbNetworks as Readonly<Record<string, { readonly ipv4_address?: string } | null>>).find(
          (n) => n?.ipv4_address !== undefined,
        )?.ipv4_address
      : undefined;
  if (lb === undefined || lbAddress === undefined) problems.push('the scale profile has no load balancer with a fixed address');
  if (!(lb?.volumes ?? []).some((v) => v.startsWith('./deploy/'))) problems.push('the load balancer config is not under deploy/');
  if (!/\/readyz\b/.test(haproxy)) problems.push('the load balancer does not check /readyz');
  if (!/X-Forwarded-For/i.test(haproxy)) problems.push('the load balancer does not pass X-Forwarded-For');
  for (const [name] of apps) {
    if (!new RegExp(`^\\s*server\\s+\\S+\\s+${name}:3000\\b`, 'm').test(haproxy))
      problems.push(`the load balancer does not send to ${name}:3000`);
    if (lb?.depends_on?.[name]?.condition !== 'service_healthy') problems.push(`the load balancer does not wait for ${name} to be healthy`);
  }

  for (const [name, service] of apps) {
    for (const dependency of ['postgres', 'redis']) {
      if (service.depends_on?.[dependency]?.condition !== 'service_healthy')
        problems.push(`${name} does not wait for ${dependency} to be healthy`);
    }
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v))]));
    for (const variable of ['DATABASE_URL', 'REDIS_URL', 'BASE_URL', 'CODE_SECRET']) {
      if (env[variable] === undefined) problems.push(`${name}: ${variable} is not set`);
    }
    // The service refuses a published secret; compose must make the operator bring one, not carry a placeholder.
    if (!String(service.environment?.CODE_SECRET).startsWith('${CODE_SECRET:?'))
      problems.push(`${name}: CODE_SECRET is not required (\${CODE_SECRET:?…})`);
    if (env.TRUST_PROXY !== lbAddress)
      problems.push(`${name}: TRUST_PROXY is ${env.TRUST_PROXY ?? 'unset'}, not the balancer's ${lbAddress ?? '?'}`);
    problems.push(...environmentProblems(`compose ${name}`, env, known));
    const stopMs = Number(/^(\d+)s$/.exec(service.stop_grace_period ?? '10s')?.[1]) * 1000;
    if (!(stopMs > Number(env.SHUTDOWN_GRACE_MS ?? 10_000))) problems.push(`${name}: stop_grace_period is not above SHUTDOWN_GRACE_MS`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Tests

const known = configVariables();

test('the variable names are those src/config/config.ts declares', () => {
  for (const name of [
    'PORT',
    'HOST',
    'DATABASE_URL',
    'REDIS_URL',
    'BASE_URL',
    'CODE_SECRET',
    'TRUST_PROXY',
    'READINESS_DRAIN_MS',
    'SHUTDOWN_GRACE_MS',
    'BLOCKED_DOMAINS',
  ]) {
    assert.ok(known.has(name), name);
  }
  assert.ok(known.size > 40, `${known.size} variables found`);
});

test('every Kubernetes object is valid against the Kubernetes schema of its kind', () => {
  const { objects } = loadManifests();
  assert.equal(objects.size, K8S_FILES.length);
  for (const [key, object] of objects) {
    assert.doesNotThrow(() => validateKube(object), key);
  }
});

test('the schema check rejects a broken object and an unknown kind', () => {
  const { deployment, service } = loadManifests();
  const broken = structuredClone(deployment) as unknown as { spec: { replicas: unknown } };
  broken.spec.replicas = 'two';
  assert.throws(() => validateKube(broken as unknown as KubeObject), /replicas must be integer/);
  const noContainers = structuredClone(deployment) as unknown as { spec: { template: { spec: { containers?: unknown } } } };
  delete noContainers.spec.template.spec.containers;
  assert.throws(() => validateKube(noContainers as unknown as KubeObject), /containers/);
  assert.throws(() => validateKube({ ...service, apiVersion: 'v2' }), /not a kind/);
});

test('kustomization.yaml lists every manifest but the migration Job, which runs first', () => {
  const kustomization = parse(readText(`${K8S_DIR}kustomization.yaml`)) as { resources: string[] };
  assert.deepEqual([...kustomization.resources].sort(), K8S_FILES.filter((f) => f !== 'migrate-job.yaml').sort());
});

test('the pods get only variables of src/config/config.ts, with values the service accepts', () => {
  const m = loadManifests();
  const app = onlyContainer(m.deployment.spec?.template.spec, 'the Deployment');
  assert.deepEqual(environmentProblems('the Deployment', podEnvironment(app, m), known), []);
  const job = onlyContainer(m.job.spec?.template.spec, 'the Job');
  assert.deepEqual(environmentProblems('the Job', podEnvironment(job, m), known), []);
  // Placeholders are marked as such, so no one mistakes them for real credentials.
  assert.deepEqual(secretProblems(m.secret), []);
});

test('the Secret check catches values in data, an unmarked value, and what data gives the pods', () => {
  const m = loadManifests();
  const { stringData = {}, ...withoutStringData } = m.secret;
  assert.ok(Object.keys(stringData).length >= 3, 'the Secret holds the credentials');
  const encoded = Object.fromEntries(Object.entries(stringData).map(([name, value]) => [name, Buffer.from(value).toString('base64')]));
  const inData: ISecret = { ...withoutStringData, data: encoded };
  assert.deepEqual(secretProblems(inData), [
    `the Secret has data (${Object.keys(stringData).join(', ')}), not stringData`,
    'the Secret has no stringData',
  ]);
  assert.deepEqual(secretProblems({ ...m.secret, stringData: { ...stringData, CODE_SECRET: 'hunter2hunter2hunter2' } }), [
    "the Secret's CODE_SECRET is not marked as a placeholder",
  ]);
  // The pods see what data holds, so the environment check reads it too.
  const app = onlyContainer(m.deployment.spec?.template.spec, 'the Deployment');
  const env = podEnvironment(app, {
    ...m,
    secret: { ...inData, data: { ...encoded, REDIS_URI: Buffer.from('redis://r').toString('base64') } },
  });
  assert.equal(env.DATABASE_URL, stringData.DATABASE_URL);
  assert.match(environmentProblems('the Deployment', env, known).join('\n'), /REDIS_URI is not a variable/);
});

test('the environment check rejects an unknown name and a value the service refuses', () => {
  assert.deepEqual(environmentProblems('x', { PORT: '3000' }, known), []);
  assert.match(environmentProblems('x', { REDIS_URI: 'redis://r:6379' }, known).join('\n'), /REDIS_URI is not a variable/);
  assert.match(environmentProblems('x', { READINESS_DRAIN_MS: '20000' }, known).join('\n'), /READINESS_DRAIN_MS=20000: expected less than/);
});

test('the Deployment probes /readyz and /healthz, drains before SIGKILL, and runs locked down', () => {
  assert.deepEqual(deploymentProblems(loadManifests()), []);
});

test('the Deployment check catches a wrong probe, a short grace period and a root container', () => {
  const m = loadManifests();
  const container = onlyContainer(m.deployment.spec?.template.spec, 'the Deployment');
  const pod = m.deployment.spec?.template.spec;
  assert.ok(pod !== undefined && container.readinessProbe?.httpGet !== undefined && container.securityContext !== undefined);
  container.readinessProbe.httpGet.path = '/healthz';
  pod.terminationGracePeriodSeconds = 20;
  container.securityContext.runAsNonRoot = false;
  container.args = ['src/process/main.ts'];
  const problems = deploymentProblems(m).join('\n');
  assert.match(problems, /readinessProbe asks \/healthz, not \/readyz/);
  assert.match(problems, /terminationGracePeriodSeconds 20 s is not above/);
  assert.match(problems, /runAsNonRoot is not true/);
  assert.match(problems, /runs node src\/process\/main\.ts, not node --max-semi-space-size=8 src\/process\/main\.ts/);
});

test('the migration Job runs scripts/migrate.ts with the Deployment image and environment', () => {
  assert.deepEqual(jobProblems(loadManifests()), []);
  const m = loadManifests();
  const container = onlyContainer(m.job.spec?.template.spec, 'the Job');
  container.image = 'shortener:0.0.9';
  assert.match(jobProblems(m).join('\n'), /the Job's image shortener:0\.0\.9 is not the Deployment's/);
});

test('the Dockerfile builds production dependencies only and runs node on src/process/main.ts as a non-root user', () => {
  const dockerfile = readText('deploy/Dockerfile');
  assert.deepEqual(dockerfileProblems(dockerfile), []);
  const npmStart = dockerfile.replace(/^ENTRYPOINT .*$/m, '').replace(/^CMD .*$/m, 'CMD npm start');
  assert.match(dockerfileProblems(npmStart).join('\n'), /not in exec form/);
  const noDashboard = dockerfile.replace(/^COPY --from=dashboard .*$/m, '');
  assert.match(dockerfileProblems(noDashboard).join('\n'), /the dashboard \(dist\/app\) is not copied/);
  const asRoot = dockerfile.replace(/^USER .*$/m, 'USER root');
  assert.match(dockerfileProblems(asRoot).join('\n'), /runs as root/);
  const latest = dockerfile.replace(/^ARG NODE_IMAGE=.*$/m, 'ARG NODE_IMAGE=node:latest');
  assert.match(dockerfileProblems(latest).join('\n'), /not a pinned Node 24 slim image/);
});

test("the image's HEALTHCHECK command passes on a 200 from /healthz and fails otherwise", async () => {
  const healthcheck = parseDockerfile(readText('deploy/Dockerfile')).findLast((i) => i.keyword === 'HEALTHCHECK');
  const json = healthcheck?.args.slice(healthcheck.args.indexOf('CMD ') + 4);
  const command = execForm(json === undefined ? undefined : { keyword: 'CMD', args: json });
  assert.ok(command !== undefined && command[0] === 'node', 'HEALTHCHECK CMD runs node in exec form');
  const run = (port: number) =>
    new Promise<number>((resolve) => {
      execFile(process.execPath, command.slice(1), { env: { PORT: String(port) }, timeout: 10_000 }, (err) => {
        resolve(err === null ? 0 : typeof err.code === 'number' ? err.code : -1);
      });
    });
  const serve = async (status: number): Promise<Server> => {
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? status : 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  };
  const healthy = await serve(200);
  const sick = await serve(503);
  const healthyPort = (healthy.address() as AddressInfo).port;
  try {
    assert.equal(await run(healthyPort), 0);
    assert.equal(await run((sick.address() as AddressInfo).port), 1);
  } finally {
    healthy.close();
    sick.close();
  }
  assert.equal(await run(healthyPort), 1, 'nothing listening any more');
});

test('.dockerignore keeps dependencies, data, results, tests and git out of the build context', () => {
  const ignored = readText('.dockerignore')
    .split(/\r?\n/)
    .map((line) => line.trim());
  for (const entry of ['node_modules', 'data', '.git', 'test']) assert.ok(ignored.includes(entry), entry);
  assert.ok(ignored.includes('load') || ignored.includes('load/results'), 'load/results');
});

test('compose starts Postgres and Redis healthy before the app, and the scale profile puts HAProxy on /readyz in front of two', () => {
  const compose = parseYaml(readText('docker-compose.yml'), 'docker-compose.yml')[0] as Compose;
  const haproxy = readText('deploy/haproxy.cfg');
  assert.ok(existsSync(new URL('deploy/haproxy.cfg', root)));
  assert.deepEqual(composeProblems(compose, known, haproxy), []);
});

test('the compose check catches a missing health condition, an unknown variable and an untrusted balancer', () => {
  const compose = parseYaml(readText('docker-compose.yml'), 'docker-compose.yml')[0] as Compose;
  const haproxy = readText('deploy/haproxy.cfg');
  const broken = structuredClone(compose) as unknown as {
    services: Record<string, { depends_on: Record<string, { condition: string }>; environment: Record<string, string> }>;
  };
  const app = broken.services.app;
  assert.ok(app !== undefined && app.depends_on.redis !== undefined);
  app.depends_on.redis.condition = 'service_started';
  app.environment.REDIS_URI = 'redis://redis:6379';
  app.environment.TRUST_PROXY = 'false';
  const problems = composeProblems(broken, known, haproxy.replace(/\/readyz/g, '/')).join('\n');
  assert.match(problems, /app does not wait for redis to be healthy/);
  assert.match(problems, /REDIS_URI is not a variable/);
  assert.match(problems, /app: TRUST_PROXY is false/);
  assert.match(problems, /does not check \/readyz/);
});
