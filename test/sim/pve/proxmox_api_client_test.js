// The npm package proxmox-api (a real client nobody here wrote) against pve-sim over TLS.
// Parent mode starts pve-sim and re-runs this file as a client with NODE_EXTRA_CA_CERTS set to
// the simulator's CA, so the client verifies the certificate through its default fetch.
'use strict';
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const TOKEN_ID = 'kubernetes@pve!karpenter';
const TOKEN_SECRET = '5e1f0a7c-0d1e-4c2a-9b3f-6a7d8e9f0a1b';

function fail(message) {
  console.error('FAIL: ' + message);
  process.exit(1);
}

async function parent() {
  const bin = path.join(process.env.KP_BIN_DIR || '', 'pve-sim');
  if (!fs.existsSync(bin)) fail('pve-sim not built at ' + bin);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pve-sim-npm-'));
  const ca = path.join(dir, 'ca.pem');
  const sim = spawn(bin, ['--listen', '127.0.0.1:0', '--ca-out', ca, '--time-scale', '0.1',
                          '--data-dir', path.join(dir, 'data')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('pve-sim printed no address within 10 s')), 10000);
    sim.stdout.on('data', (d) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) { clearTimeout(timer); resolve(buf.slice(0, nl).trim()); }
    });
    sim.on('exit', (code) => reject(new Error('pve-sim exited early with ' + code)));
  }).catch((e) => { sim.kill('SIGTERM'); fail(e.message); });
  const child = spawn(process.execPath, [__filename, '--client', url], {
    stdio: 'inherit', env: { ...process.env, NODE_EXTRA_CA_CERTS: ca },
  });
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c === null ? 1 : c)));
  sim.kill('SIGTERM');
  await new Promise((resolve) => sim.on('exit', resolve));
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(code);
}

async function waitTask(api, node, upid) {
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    const st = await api.nodes.$(node).tasks.$(upid).status.$get();
    if (st.status === 'stopped') return st;
    await new Promise((r) => setTimeout(r, 50));  // poll interval, bounded by the deadline
  }
  fail('task ' + upid + ' did not finish');
}

async function client(url) {
  const npmDir = process.env.KP_NPM_DIR;
  const { proxmoxApi } = require(path.join(npmDir, 'node_modules', 'proxmox-api'));
  const u = new URL(url);
  const api = proxmoxApi({ host: u.hostname, port: Number(u.port), tokenID: TOKEN_ID, tokenSecret: TOKEN_SECRET });

  const nodes = await api.nodes.$get();
  assert.deepEqual(nodes.map((n) => n.node).sort(), ['pve1', 'pve2', 'pve3']);
  assert.ok(nodes.every((n) => n.status === 'online' && n.maxcpu === 32));

  const nextid = await api.cluster.nextid.$get();
  assert.equal(typeof nextid, 'string');
  const vmid = Number(nextid);
  assert.equal(await api.cluster.nextid.$get(), nextid, 'nextid reserves nothing');

  const templates = (await api.cluster.resources.$get({ type: 'vm' })).filter((r) => r.template === 1 && r.node === 'pve1');
  assert.equal(templates.length, 1);
  const tpl = templates[0].vmid;
  assert.equal(templates[0].name, 'k8s-template');

  const cloneUpid = await api.nodes.$('pve1').qemu.$(tpl).clone.$post({ newid: vmid, name: 'npm-node-1', full: true,
    description: 'karpenter-proxmox: cluster=npm, nodeclaim=npm-node-1, nodepool=default' });
  assert.match(cloneUpid, /^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:qmclone:\d+:kubernetes@pve!karpenter:$/);
  const cloneTask = await waitTask(api, 'pve1', cloneUpid);
  assert.equal(cloneTask.exitstatus, 'OK');
  // The cluster-wide task list names the finished clone with its exit status as `status`.
  const listed = (await api.cluster.tasks.$get()).find((t) => t.upid === cloneUpid);
  assert.ok(listed, 'GET /cluster/tasks lists the clone');
  assert.equal(listed.status, 'OK');
  assert.equal(listed.node, 'pve1');
  assert.ok(listed.endtime >= listed.starttime);

  const vm = api.nodes.$('pve1').qemu.$(vmid);
  const cfgUpid = await vm.config.$post({ cores: 4, memory: 4096, tags: 'karpenter,Pool-A', net0: 'virtio,bridge=vmbr0,queues=4' });
  assert.equal((await waitTask(api, 'pve1', cfgUpid)).exitstatus, 'OK');
  const config = await vm.config.$get();
  assert.equal(config.cores, 4);
  assert.equal(config.memory, '4096');
  assert.equal(config.tags, 'karpenter;pool-a');
  assert.equal(config.name, 'npm-node-1');
  assert.match(config.digest, /^[0-9a-f]{40}$/);

  await assert.rejects(vm.config.$put({ affinity: '0-3' }), /only root can set 'affinity' config/);

  assert.equal((await waitTask(api, 'pve1', await vm.status.start.$post())).exitstatus, 'OK');
  const current = await vm.status.current.$get();
  assert.equal(current.status, 'running');
  assert.equal(current.cpus, 4);
  assert.equal(current.maxmem, 4096 * 1024 * 1024);

  await assert.rejects(vm.$delete({ purge: 1 }), /Error 500 .*VM \d+ is running - destroy failed/);

  assert.equal((await waitTask(api, 'pve1', await vm.status.stop.$post())).exitstatus, 'OK');
  assert.equal((await vm.status.current.$get()).status, 'stopped');
  assert.equal((await waitTask(api, 'pve1', await vm.$delete({ purge: 1 }))).exitstatus, 'OK');
  await assert.rejects(vm.config.$get(), /does not exist/);

  // Password mode: ticket + CSRF token, as root@pam, may set root-only keys.
  const root = proxmoxApi({ host: u.hostname, port: Number(u.port), username: 'root@pam', password: 'pve-sim-root' });
  const id2 = Number(await root.cluster.nextid.$get());
  const upid2 = await root.nodes.$('pve2').qemu.$(9002).clone.$post({ newid: id2, name: 'npm-node-2' });
  assert.equal((await waitTask(root, 'pve2', upid2)).exitstatus, 'OK');
  await root.nodes.$('pve2').qemu.$(id2).config.$put({ affinity: '0,1,2,3,16' });
  assert.equal((await root.nodes.$('pve2').qemu.$(id2).config.$get()).affinity, '0-3,16');

  await mappingsAndRefusals(api);
  console.log('proxmox-api client: all checks passed');
}

// PCI resource mappings, 400s for malformed parameters, a start refused for a busy device and a
// start task that fails: what the client sees of each.
async function mappingsAndRefusals(api) {
  const mappings = await api.cluster.mapping.pci.$get();
  assert.equal(mappings.length, 1);
  assert.equal(mappings[0].id, 'gpu');
  assert.equal(mappings[0].type, 'pci');
  assert.match(mappings[0].digest, /^[0-9a-f]{40}$/);
  assert.deepEqual(mappings[0].map.map((m) => m.split(',')[0]), ['node=pve2', 'node=pve3', 'node=pve3']);
  assert.ok(mappings[0].map[0].includes('path=0000:01:00.0') && mappings[0].map[0].includes('id=10de:2204'));
  const checked = await api.cluster.mapping.pci.$get({ 'check-node': 'pve1' });
  assert.equal(checked[0].checks[0].message, 'No mapping for node pve1.');
  const gpu = await api.cluster.mapping.pci.$('gpu').$get();
  assert.equal(gpu.map.length, 3);
  await assert.rejects(api.cluster.mapping.pci.$('tpu').$get(), /Error 500 .*mapping 'tpu' not found/);

  await assert.rejects(api.nodes.$('pve1').qemu.$('12345678901').config.$get(),
    (e) => /Error 400/.test(e.message) && /"vmid":"invalid format - value does not look like a valid VM ID/.test(e.message));
  await assert.rejects(api.nodes.$('pve1').qemu.$(9001).clone.$post({ newid: 12345678901 }),
    (e) => /Error 400/.test(e.message) && /"newid"/.test(e.message));
  await assert.rejects(api.nodes.$('pve1').tasks.$get({ limit: 'many' }),
    (e) => /Error 400/.test(e.message) && /type check \('integer'\) failed - got 'many'/.test(e.message));

  // Two VMs with the GPU mapping on pve2, which has one device.
  const node = api.nodes.$('pve2');
  const ids = [];
  for (const name of ['npm-gpu-1', 'npm-gpu-2']) {
    const id = Number(await api.cluster.nextid.$get());
    assert.equal((await waitTask(api, 'pve2', await node.qemu.$(9002).clone.$post({ newid: id, name }))).exitstatus, 'OK');
    await node.qemu.$(id).config.$put({ hostpci0: 'mapping=gpu' });
    ids.push(id);
  }
  const [first, second] = ids.map((id) => node.qemu.$(id));
  assert.equal((await waitTask(api, 'pve2', await first.status.start.$post())).exitstatus, 'OK');
  const refused = await waitTask(api, 'pve2', await second.status.start.$post());
  assert.equal(refused.exitstatus, `PCI device '0000:01:00.0' already in use by VMID '${ids[0]}'`);
  assert.equal((await second.status.current.$get()).status, 'stopped');
  assert.equal((await waitTask(api, 'pve2', await first.status.stop.$post())).exitstatus, 'OK');

  // A start task that fails: NUMA nodes that do not add up to the VM's memory.
  await second.config.$put({ numa: 1, numa0: 'cpus=0-1,memory=1024' });
  const failed = await waitTask(api, 'pve2', await second.status.start.$post());
  assert.equal(failed.exitstatus, 'total memory for NUMA nodes must be equal to vm static memory');
  const log = await node.tasks.$(failed.upid).log.$get();
  assert.equal(log[log.length - 1].t, 'TASK ERROR: total memory for NUMA nodes must be equal to vm static memory');
  await second.config.$put({ delete: 'numa0', numa: 0 });
  assert.equal((await waitTask(api, 'pve2', await second.status.start.$post())).exitstatus, 'OK');
  assert.equal((await waitTask(api, 'pve2', await second.status.stop.$post())).exitstatus, 'OK');
  for (const vm of [first, second]) {
    assert.equal((await waitTask(api, 'pve2', await vm.$delete({ purge: 1 }))).exitstatus, 'OK');
  }
}

if (process.argv[2] === '--client') {
  client(process.argv[3]).catch((e) => fail(e.stack || String(e)));
} else {
  parent().catch((e) => fail(e.stack || String(e)));
}
