// The changelog renderer of `nx release` (nx.json release.changelog.projectChangelogs.renderer). Nx puts every
// commit that touched a package's files in its changelog; this keeps the package's own entries: squashed subjects
// split into their headers, entries scoped to other packages dropped, internal notes dropped, and dependency
// bumps only of what users install (dependencies and peers, not devDependencies).
"use strict";
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const DefaultChangelogRenderer = require("nx/release/changelog-renderer").default;
const { belongsTo, publicDescription, splitSquashed } = require("./changelog-rules.cjs");

const PACKAGES = join(__dirname, "..", "..", "packages");

function manifests() {
  return readdirSync(PACKAGES).flatMap((folder) => {
    try {
      return [{ folder, manifest: JSON.parse(readFileSync(join(PACKAGES, folder, "package.json"), "utf8")) }];
    } catch {
      return [];
    }
  });
}

class OutpostChangelogRenderer extends DefaultChangelogRenderer {
  constructor(config) {
    super(config);
    const all = manifests();
    const own = all.find(({ manifest }) => manifest.name === config.project);
    if (own === undefined) return;
    const folders = all.map(({ folder }) => folder);
    this.changes = this.changes
      .flatMap(splitSquashed)
      .filter((change) => belongsTo(change.scope, own.folder, folders))
      .flatMap((change) => {
        const description = publicDescription(change.description);
        return description === undefined ? [] : [{ ...change, description }];
      });
    const installed = new Set(Object.keys({ ...own.manifest.dependencies, ...own.manifest.peerDependencies }));
    this.dependencyBumps = (this.dependencyBumps ?? []).filter((bump) => installed.has(bump.dependencyName));
  }
}

module.exports = OutpostChangelogRenderer;
module.exports.default = OutpostChangelogRenderer;
