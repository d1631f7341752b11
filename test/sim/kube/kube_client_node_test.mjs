// The official JavaScript client, @kubernetes/client-node 1.x (a real client nobody here wrote),
// against a kube-sim process: informers, watches from a resourceVersion, the three patch types,
// optimistic concurrency, evictions and PDBs, custom objects with status, pagination snapshots,
// time formats, and the delete/auth/dryRun/415/422 behaviours kube-sim keeps.
// Node's default agent sends `Connection: close`; every watch here goes through it unchanged.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, after, before } from 'node:test';
import { pathToFileURL } from 'node:url';

const npmDir = process.env.KP_NPM_DIR;
const bin = path.join(process.env.KP_BIN_DIR || '', 'kube-sim');
const k8s = await import(pathToFileURL(
  path.join(npmDir, 'node_modules', '@kubernetes', 'client-node', 'dist', 'index.js')).href);

let sim;
let dir;
let kc;
let core;

// Polls `check` until it returns a truthy value or the deadline passes.
async function eventually(what, check, ms = 10000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 50));  // poll interval, bounded by the deadline
  }
  assert.fail(`${what} did not happen within ${ms} ms (last: ${last && (last.stack || JSON.stringify(last))})`);
}

// The HTTP status of a failed client call.
async function statusOf(promise) {
  try {
    await promise;
  } catch (e) {
    let body = e.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON: keep the text
      }
    }
    return { code: e.code, body };
  }
  assert.fail('the call succeeded');
}

// A raw request through the client's own auth and TLS options, for what the typed API cannot say.
async function raw(method, urlPath, body, contentType = 'application/json', user = kc) {
  const https = await import('node:https');
  const opts = {};
  await user.applyToHTTPSOptions(opts);
  const url = new URL(user.getCurrentCluster().server + urlPath);
  return new Promise((resolve, reject) => {
    const req = https.request(url, { ...opts, method, headers: { ...(opts.headers || {}), 'Content-Type': contentType } }, (res) => {
      let data = '';
      res.on('data', (d) => { data += d; });
      res.on('end', () => resolve({ status: res.statusCode, body: data ? JSON.parse(data) : null, headers: res.headers }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(typeof body === 'string' ? body : JSON.stringify(body));
    req.end();
  });
}

before(async () => {
  assert.ok(fs.existsSync(bin), 'kube-sim is built at ' + bin);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-sim-js-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  sim = spawn(bin, ['--listen', '127.0.0.1:0', '--kubeconfig-out', kubeconfig,
    '--node-monitor-grace', '3600', '--watch-history', '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await eventually('kube-sim writing its kubeconfig', () => fs.existsSync(kubeconfig));
  kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'js' } } });
});

after(async () => {
  if (sim) {
    sim.kill('SIGTERM');
    await new Promise((r) => sim.on('exit', r));
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('an informer sees ADDED, MODIFIED and DELETED through the default agent', async () => {
  const seen = [];
  const informer = k8s.makeInformer(kc, '/api/v1/namespaces/js/configmaps',
    () => core.listNamespacedConfigMap({ namespace: 'js' }));
  informer.on('add', (o) => seen.push('add ' + o.metadata.name));
  informer.on('update', (o) => seen.push('update ' + o.metadata.name + ' ' + (o.data || {}).k));
  informer.on('delete', (o) => seen.push('delete ' + o.metadata.name));
  await informer.start();
  try {
    await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'inf' }, data: { k: '1' } } });
    await eventually('the ADDED event', () => seen.includes('add inf'));
    await core.replaceNamespacedConfigMap({ namespace: 'js', name: 'inf', body: { metadata: { name: 'inf' }, data: { k: '2' } } });
    await eventually('the MODIFIED event', () => seen.includes('update inf 2'));
    await core.deleteNamespacedConfigMap({ namespace: 'js', name: 'inf' });
    await eventually('the DELETED event', () => seen.includes('delete inf'));
  } finally {
    await informer.stop();
  }
});

test('a watch from a resourceVersion gets only later changes', async () => {
  const first = await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'w1' } } });
  const rv = first.metadata.resourceVersion;
  await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'w2' } } });
  const events = [];
  const watch = new k8s.Watch(kc);
  const ctl = await watch.watch('/api/v1/namespaces/js/configmaps', { resourceVersion: rv },
    (type, obj) => events.push(type + ' ' + obj.metadata.name), () => {});
  try {
    await eventually('w2 replayed after the resourceVersion', () => events.includes('ADDED w2'));
    await core.patchNamespacedConfigMap({ namespace: 'js', name: 'w1', body: { data: { a: 'b' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await eventually('the MODIFIED event of w1', () => events.includes('MODIFIED w1'));
    assert.ok(!events.includes('ADDED w1'), 'w1 existed at the resourceVersion: ' + events);
  } finally {
    ctl.abort();
  }
});

test('merge, JSON and strategic merge patches', async () => {
  await core.createNamespacedPod({ namespace: 'js', body: {
    metadata: { name: 'patched', labels: { a: '1' } },
    spec: { containers: [{ name: 'c', image: 'nginx:1.25' }, { name: 'd', image: 'busybox:1' }] } } });
  await core.patchNamespacedPod({ namespace: 'js', name: 'patched', body: { metadata: { labels: { b: '2' } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await core.patchNamespacedPod({ namespace: 'js', name: 'patched', body: [{ op: 'add', path: '/metadata/labels/c', value: '3' }] },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
  await core.patchNamespacedPod({ namespace: 'js', name: 'patched',
    body: { spec: { containers: [{ name: 'd', image: 'busybox:2' }] } } },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch));
  const pod = await core.readNamespacedPod({ namespace: 'js', name: 'patched' });
  assert.deepEqual(pod.metadata.labels, { a: '1', b: '2', c: '3' });
  assert.deepEqual(pod.spec.containers.map((c) => c.name + '=' + c.image), ['c=nginx:1.25', 'd=busybox:2'],
    'the strategic patch merged the container list by name');
  const failed = await statusOf(core.patchNamespacedPod({ namespace: 'js', name: 'patched',
    body: [{ op: 'test', path: '/metadata/labels/a', value: 'x' }] },
  k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch)));
  assert.equal(failed.code, 422);
});

test('a Lease update with a stale resourceVersion is a 409 Conflict', async () => {
  const leases = kc.makeApiClient(k8s.CoordinationV1Api);
  const created = await leases.createNamespacedLease({ namespace: 'js', body: {
    metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } });
  const fresh = structuredClone(created);
  fresh.spec.holderIdentity = 'b';
  await leases.replaceNamespacedLease({ namespace: 'js', name: 'leader', body: fresh });
  const stale = structuredClone(created);
  stale.spec.holderIdentity = 'c';
  const conflict = await statusOf(leases.replaceNamespacedLease({ namespace: 'js', name: 'leader', body: stale }));
  assert.equal(conflict.code, 409);
  assert.equal(conflict.body.reason, 'Conflict');
  assert.match(conflict.body.message, /the object has been modified; please apply your changes to the latest version/);
});

test('MicroTime needs six fractional digits and Time is written in whole seconds', async () => {
  const body = (renewTime) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'times' },
    spec: { holderIdentity: 'a', renewTime } });
  const bad = await raw('POST', '/apis/coordination.k8s.io/v1/namespaces/js/leases', body('2025-01-02T03:04:05.123Z'));
  assert.equal(bad.status, 400);
  assert.equal(bad.body.kind, 'Status');
  assert.equal(bad.body.reason, 'BadRequest');
  assert.match(bad.body.message, /^Lease in version "v1" cannot be handled as a Lease: parsing time "2025-01-02T03:04:05.123Z" as "2006-01-02T15:04:05.000000Z07:00"/);
  const good = await raw('POST', '/apis/coordination.k8s.io/v1/namespaces/js/leases', body('2025-01-02T03:04:05.123456Z'));
  assert.equal(good.status, 201);
  assert.equal(good.body.spec.renewTime, '2025-01-02T03:04:05.123456Z');
  assert.match(good.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const pod = await raw('POST', '/api/v1/namespaces/js/pods', { metadata: { name: 'timed' },
    spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } });
  assert.equal(pod.status, 201);
  // The scheduler may write the pod between our read and our PUT (409): read again and retry.
  let cond;
  for (let attempt = 0; attempt < 5; ++attempt) {
    const current = await raw('GET', '/api/v1/namespaces/js/pods/timed');
    cond = await raw('PUT', '/api/v1/namespaces/js/pods/timed/status', { ...current.body,
      status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2025-01-02T03:04:05.987Z' }] } });
    if (cond.status !== 409) break;
  }
  assert.equal(cond.status, 200);
  assert.equal(cond.body.status.conditions[0].lastTransitionTime, '2025-01-02T03:04:05Z');
});

test('an eviction blocked by a PodDisruptionBudget is a 429 until the budget allows it', async () => {
  await core.createNode({ body: { metadata: { name: 'js-node', labels: { 'kubernetes.io/hostname': 'js-node' } },
    status: { capacity: { cpu: '8', memory: '16Gi', pods: '110' }, allocatable: { cpu: '8', memory: '16Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } } });
  const pod = (name) => ({ metadata: { name, labels: { app: 'guarded' } },
    spec: { containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '100m' } } }] } });
  await core.createNamespacedPod({ namespace: 'js', body: pod('guarded-1') });
  const policy = kc.makeApiClient(k8s.PolicyV1Api);
  await policy.createNamespacedPodDisruptionBudget({ namespace: 'js', body: {
    metadata: { name: 'guard' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } } });
  await eventually('guarded-1 running', async () =>
    (await core.readNamespacedPod({ namespace: 'js', name: 'guarded-1' })).status.phase === 'Running');
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded-1', namespace: 'js' } };
  const blocked = await eventually('the budget blocking', async () => {
    const s = await statusOf(core.createNamespacedPodEviction({ namespace: 'js', name: 'guarded-1', body: eviction }));
    return s.code === 429 ? s : null;
  });
  assert.equal(blocked.body.reason, 'TooManyRequests');
  assert.equal(blocked.body.details.causes[0].reason, 'DisruptionBudget');
  await core.createNamespacedPod({ namespace: 'js', body: pod('guarded-2') });
  await eventually('the eviction allowed once a second pod runs', async () => {
    await core.createNamespacedPodEviction({ namespace: 'js', name: 'guarded-1', body: eviction });
    return true;
  });
  await eventually('guarded-1 terminating or gone', async () => {
    const left = await core.listNamespacedPod({ namespace: 'js', fieldSelector: 'metadata.name=guarded-1' });
    return left.items.length === 0 || left.items[0].metadata.deletionTimestamp !== undefined;
  });
});

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', properties: { replicas: { type: 'integer' }, size: { type: 'integer' } },
          // The typed model's name for x-kubernetes-validations.
          x_kubernetes_validations: [
            { rule: 'self.size <= 10', message: 'size must be at most 10' },
            { rule: 'self.size >= oldSelf.size', message: 'size may not shrink' }] },
        status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } } } } },
    }],
  },
};

test('custom objects with their status subresource, CEL rules and scale', async () => {
  const ext = kc.makeApiClient(k8s.ApiextensionsV1Api);
  await ext.createCustomResourceDefinition({ body: widgetCrd });
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const ref = { group: 'example.com', version: 'v1', namespace: 'js', plural: 'gadgets' };
  await eventually('the CRD being served', async () => {
    await custom.listNamespacedCustomObject(ref);
    return true;
  });
  const created = await custom.createNamespacedCustomObject({ ...ref, body: {
    apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 3, replicas: 1 }, status: { phase: 'ignored' } } });
  assert.equal(created.status, undefined, 'status is the status subresource\'s');
  await custom.patchNamespacedCustomObjectStatus({ ...ref, name: 'g1', body: { status: { phase: 'Ready', replicas: 1 } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  const g1 = await custom.getNamespacedCustomObject({ ...ref, name: 'g1' });
  assert.equal(g1.status.phase, 'Ready');
  assert.equal(g1.metadata.generation, 1, 'a status write does not bump the generation');
  const tooBig = await statusOf(custom.patchNamespacedCustomObject({ ...ref, name: 'g1', body: { spec: { size: 11 } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)));
  assert.equal(tooBig.code, 422);
  assert.equal(tooBig.body.message, 'Gadget.example.com "g1" is invalid: spec: Invalid value: "object": size must be at most 10');
  const shrink = await statusOf(custom.patchNamespacedCustomObject({ ...ref, name: 'g1', body: { spec: { size: 2 } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)));
  assert.equal(shrink.code, 422);
  assert.match(shrink.body.message, /size may not shrink/);
  const strategic = await statusOf(custom.patchNamespacedCustomObject({ ...ref, name: 'g1', body: { spec: { size: 4 } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch)));
  assert.equal(strategic.code, 415);
  const scale = await raw('PATCH', '/apis/example.com/v1/namespaces/js/gadgets/g1/scale', { spec: { replicas: 4 } },
    'application/merge-patch+json');
  assert.equal(scale.status, 200);
  assert.equal(scale.body.kind, 'Scale');
  assert.equal(scale.body.spec.replicas, 4);
  assert.equal(scale.body.status.replicas, 1);
  assert.equal((await custom.getNamespacedCustomObject({ ...ref, name: 'g1' })).spec.replicas, 4);
});

test('continued pages are a snapshot and an expired token is a 410 with a fresh continue hint', async () => {
  await core.createNamespace({ body: { metadata: { name: 'pages' } } });
  for (const n of ['a', 'b', 'c', 'd', 'e'])
    await core.createNamespacedConfigMap({ namespace: 'pages', body: { metadata: { name: n }, data: { v: '1' } } });
  const first = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 2 });
  assert.deepEqual(first.items.map((i) => i.metadata.name), ['a', 'b']);
  assert.ok(first.metadata._continue);
  // Changes after the first page: a new object, a deleted one, a modified one.
  await core.createNamespacedConfigMap({ namespace: 'pages', body: { metadata: { name: 'cc' } } });
  await core.deleteNamespacedConfigMap({ namespace: 'pages', name: 'd' });
  await core.patchNamespacedConfigMap({ namespace: 'pages', name: 'e', body: { data: { v: '2' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  const rest = [];
  let token = first.metadata._continue;
  while (token) {
    const page = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 2, _continue: token });
    assert.equal(page.metadata.resourceVersion, first.metadata.resourceVersion);
    rest.push(...page.items.filter((i) => i.metadata.name !== 'kube-root-ca.crt')
      .map((i) => i.metadata.name + '=' + ((i.data || {}).v || '')));
    token = page.metadata._continue;
  }
  assert.deepEqual(rest, ['c=1', 'd=1', 'e=1']);
  const again = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 2 });
  const expired = await raw('POST', '/sim/v1/expire', { count: 1 });
  assert.equal(expired.status, 200);
  const gone = await statusOf(core.listNamespacedConfigMap({ namespace: 'pages', limit: 2, _continue: again.metadata._continue }));
  assert.equal(gone.code, 410);
  assert.equal(gone.body.reason, 'Expired');
  assert.ok(gone.body.metadata.continue, 'a fresh continue hint');
  // The hint continues after the expired token's last key, from the newest state.
  const resumed = await core.listNamespacedConfigMap({ namespace: 'pages', limit: 100, _continue: gone.body.metadata.continue });
  assert.deepEqual(resumed.items.map((i) => i.metadata.name), ['c', 'cc', 'e', 'kube-root-ca.crt']);
});

test('deletion propagation: background, foreground and orphan', async () => {
  const owner = await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'owner' } } });
  const ownerRef = (o) => [{ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid }];
  await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'dep-bg', ownerReferences: ownerRef(owner) } } });
  await core.deleteNamespacedConfigMap({ namespace: 'js', name: 'owner', body: { propagationPolicy: 'Background' } });
  await eventually('the dependent collected', async () =>
    (await statusOf(core.readNamespacedConfigMap({ namespace: 'js', name: 'dep-bg' }))).code === 404);

  const fg = await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'owner-fg' } } });
  await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'dep-fg', ownerReferences: ownerRef(fg) } } });
  await core.deleteNamespacedConfigMap({ namespace: 'js', name: 'owner-fg', body: { propagationPolicy: 'Foreground' } });
  await eventually('owner and dependent gone', async () =>
    (await statusOf(core.readNamespacedConfigMap({ namespace: 'js', name: 'owner-fg' }))).code === 404 &&
    (await statusOf(core.readNamespacedConfigMap({ namespace: 'js', name: 'dep-fg' }))).code === 404);

  const or = await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'owner-or' } } });
  await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'dep-or', ownerReferences: ownerRef(or) } } });
  await core.deleteNamespacedConfigMap({ namespace: 'js', name: 'owner-or', body: { propagationPolicy: 'Orphan' } });
  await eventually('the orphan freed of its owner', async () => {
    const dep = await core.readNamespacedConfigMap({ namespace: 'js', name: 'dep-or' });
    return !dep.metadata.ownerReferences || dep.metadata.ownerReferences.length === 0;
  });
});

test('delete preconditions and dryRun', async () => {
  const cm = await core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'pre' } } });
  const wrong = await statusOf(core.deleteNamespacedConfigMap({ namespace: 'js', name: 'pre',
    body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } }));
  assert.equal(wrong.code, 409);
  assert.match(wrong.body.message, /Precondition failed: UID in precondition/);
  await core.deleteNamespacedConfigMap({ namespace: 'js', name: 'pre', body: { preconditions: { uid: cm.metadata.uid } } });
  const dry = await core.createNamespacedConfigMap({ namespace: 'js', dryRun: 'All', body: { metadata: { name: 'dry' } } });
  assert.equal(dry.metadata.name, 'dry');
  assert.equal((await statusOf(core.readNamespacedConfigMap({ namespace: 'js', name: 'dry' }))).code, 404);
});

test('a terminating namespace refuses new objects and disappears once emptied', async () => {
  await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
  await core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'x' } } });
  await core.deleteNamespace({ name: 'doomed' });
  const refused = await statusOf(core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'y' } } }));
  assert.ok(refused.code === 403 || refused.code === 404, 'no new content while terminating: ' + refused.code);
  await eventually('the namespace gone', async () => (await statusOf(core.readNamespace({ name: 'doomed' }))).code === 404);
});

test('a bootstrap token authenticates as its bootstrapper and may create CSRs only', async () => {
  const exp = new Date(Date.now() + 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  await core.createNamespacedSecret({ namespace: 'kube-system', body: {
    metadata: { name: 'bootstrap-token-abcdef' }, type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', expiration: exp,
      'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' } } });
  const boot = new k8s.KubeConfig();
  boot.loadFromOptions({
    clusters: [{ ...kc.getCurrentCluster() }],
    users: [{ name: 'boot', token: 'abcdef.0123456789abcdef' }],
    contexts: [{ name: 'boot', cluster: kc.getCurrentCluster().name, user: 'boot' }],
    currentContext: 'boot',
  });
  const csrs = boot.makeApiClient(k8s.CertificatesV1Api);
  await csrs.listCertificateSigningRequest();
  const denied = await statusOf(boot.makeApiClient(k8s.CoreV1Api).listNamespacedSecret({ namespace: 'kube-system' }));
  assert.equal(denied.code, 403);
  assert.match(denied.body.message, /system:bootstrap:abcdef/);
  const bad = new k8s.KubeConfig();
  bad.loadFromOptions({ clusters: [{ ...kc.getCurrentCluster() }], users: [{ name: 'x', token: 'abcdef.wrongwrongwrong0' }],
    contexts: [{ name: 'x', cluster: kc.getCurrentCluster().name, user: 'x' }], currentContext: 'x' });
  assert.equal((await statusOf(bad.makeApiClient(k8s.CoreV1Api).listNamespace())).code, 401);
});

test('malformed bodies, oversized bodies, unsupported media types and invalid objects get Status answers', async () => {
  const huge = await raw('POST', '/api/v1/namespaces/js/configmaps',
    { metadata: { name: 'huge' }, data: { blob: 'x'.repeat(4 << 20) } });
  assert.equal(huge.status, 413);
  assert.equal(huge.body.reason, 'RequestEntityTooLarge');
  assert.equal(huge.body.message, 'Request entity too large: limit is 3145728');
  const malformed = await raw('POST', '/api/v1/namespaces/js/configmaps', '{"metadata":');
  assert.equal(malformed.status, 400);
  assert.equal(malformed.body.kind, 'Status');
  const media = await raw('POST', '/api/v1/namespaces/js/configmaps', 'a: b', 'text/plain');
  assert.equal(media.status, 415);
  assert.equal(media.body.reason, 'UnsupportedMediaType');
  const invalid = await statusOf(core.createNamespacedConfigMap({ namespace: 'js', body: { metadata: { name: 'Not_Valid' } } }));
  assert.equal(invalid.code, 422);
  assert.equal(invalid.body.reason, 'Invalid');
  assert.equal(invalid.body.details.causes[0].field, 'metadata.name');
});
