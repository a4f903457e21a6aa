// Validates Kubernetes objects (a JSON array on stdin) against the Kubernetes API schemas with
// kubernetes-models, and KEDA's and the Prometheus Operator's objects against their CRD schemas
// (@kubernetes-models/keda, @kubernetes-models/prometheus-operator). A separate process because
// these packages are ESM-only and jest runs the tests as CommonJS.
// Prints [{kind, name, error}] (error null when the object is valid, or when no model knows it).
import * as core from 'kubernetes-models/v1';
import * as apps from 'kubernetes-models/apps/v1';
import * as batch from 'kubernetes-models/batch/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import * as monitoring from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

const groups = {
  v1: core,
  'apps/v1': apps,
  'batch/v1': batch,
  'policy/v1': policy,
  'networking.k8s.io/v1': networking,
  'autoscaling/v2': autoscaling,
  'keda.sh/v1alpha1': keda,
  'monitoring.coreos.com/v1': monitoring,
};

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const objects = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = objects.map((input) => {
  // kustomize wraps long base64 Secret values over lines, which the API server's decoder (Go's
  // base64, which skips newlines) accepts; the schema's "byte" format does not.
  const obj = input.kind === 'Secret' && input.data ? { ...input, data: Object.fromEntries(Object.entries(input.data).map(([k, v]) => [k, String(v).replace(/\s+/g, '')])) } : input;
  const Model = groups[obj.apiVersion]?.[obj.kind];
  const ref = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata?.name ?? null };
  if (!Model) return { ...ref, known: false, error: null };
  try {
    new Model(obj).validate();
    return { ...ref, known: true, error: null };
  } catch (err) {
    return { ...ref, known: true, error: String(err?.message ?? err) };
  }
});
process.stdout.write(JSON.stringify(results));
