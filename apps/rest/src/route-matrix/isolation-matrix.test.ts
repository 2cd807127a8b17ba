import { describeIsolationMatrix } from "../testing/matrix/isolation-matrix.contract.ts";
import { inMemoryMatrixTarget } from "../testing/matrix/isolation-world.ts";

describeIsolationMatrix("in memory", async () => inMemoryMatrixTarget());
