#include "cli/kube_flags.h"

namespace gpucost::cli {

void AddKubeFlags(CLI::App& cmd, KubeFlags& flags) {
  cmd.add_flag("--kube", flags.kube,
               "Read pods, owners, labels and nodes from the Kubernetes API (kubeconfig: "
               "$KUBECONFIG, the in-cluster service account, ~/.kube/config); its identity wins "
               "over kube-state-metrics' (docs/k8s.md)");
  cmd.add_option("--kubeconfig", flags.kubeconfig,
                 "With the Kubernetes API: this kubeconfig (colon-separated list; implies --kube)");
  cmd.add_option("--kube-context", flags.context,
                 "With the Kubernetes API: this kubeconfig context (implies --kube)");
  cmd.add_flag("--kube-in-cluster", flags.in_cluster,
               "With the Kubernetes API: the pod's service account (implies --kube)");
  cmd.add_option("--annotation-allowlist", flags.annotation_allowlist,
                 "With the Kubernetes API: pod and namespace annotations kept beside the labels "
                 "(label:KEY dimension), comma-separated; default: none");
}

void AddKubeObjectsFlags(CLI::App& cmd, KubeFlags& flags) {
  cmd.add_option("--kube-objects", flags.objects,
                 "Read the Kubernetes API's objects from files instead of a live server: what "
                 "`kubectl get nodes,pods,namespaces,replicasets,jobs,resourceslices,"
                 "resourceclaims,deviceclasses -A -o json` writes (docs/k8s.md \"Object files\")")
      ->expected(1, -1);
  cmd.add_option("--kube-objects-at", flags.objects_at,
                 "With --kube-objects: when the objects were taken (RFC 3339); default: the "
                 "files' latest modification time");
}

}  // namespace gpucost::cli
