/**
 * A command whose child starts a grandchild that ignores SIGTERM. Both write their pid under `kit-tree/`
 * (relative to the working directory); the grandchild then prints `ready` and sleeps for minutes.
 */
export const TREE_SCRIPT = `
mkdir -p kit-tree
echo $$ > kit-tree/child.pid
sh -c 'trap "" TERM; echo $$ > kit-tree/grandchild.pid; echo ready; exec sleep 300' &
wait
`;

export const TREE_PID_FILES = ["kit-tree/child.pid", "kit-tree/grandchild.pid"] as const;
