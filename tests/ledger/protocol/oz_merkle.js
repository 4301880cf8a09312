// Reads {"trees": [[digest hex, ...], ...]} on stdin; prints for each tree the root, the proof
// of every value (input order) and the dump, computed by @openzeppelin/merkle-tree.
const { StandardMerkleTree } = require("@openzeppelin/merkle-tree");

let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const { trees } = JSON.parse(input);
  const out = trees.map((digests) => {
    const tree = StandardMerkleTree.of(digests.map((d) => [d]), ["bytes32"]);
    return { root: tree.root, proofs: digests.map((_, i) => tree.getProof(i)), dump: tree.dump() };
  });
  process.stdout.write(JSON.stringify(out));
});
