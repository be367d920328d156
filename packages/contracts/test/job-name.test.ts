import { describe, expect, it } from "vitest";
import { defaultJobName } from "../src";

describe("a job's default name", () => {
  it("is the program's name: no path, no shell punctuation, no environment assignments", () => {
    for (const [command, name] of [
      ["python train.py --lr 3e-4", "python"],
      ["./train.sh --epochs 3", "train.sh"],
      ["/opt/lab/bin/train.sh; echo done", "train.sh"],
      ["python3; nvidia-smi", "python3"],
      ["python3.11 -m torch.distributed.run x.py", "python3.11"],
      ["  CUDA_LAUNCH_BLOCKING=1 SEED=2 torchrun --nproc-per-node 8 x.py", "torchrun"],
      ['"./my dir/run-it.sh" --fast', "run-it.sh"],
      ["OPTS='-x -y' NAME=\"a b\" ./eval.py", "eval.py"],
      ["(cd /work && make)", "cd"],
      ["~/bin/eval_all.sh&& true", "eval_all.sh"],
      ["$HOME/bin/sweep", "sweep"],
      ["训练.py", "训练.py"],
    ] as const)
      expect(defaultJobName(command), command).toBe(name);
  });
  it("falls back to 'job' when the command leaves no name, and stays short", () => {
    for (const command of ["", "   ", "&& ;", "./", "A=1", "'\"'"]) expect(defaultJobName(command), command).toBe("job");
    expect(defaultJobName(`${"a".repeat(59)}-b`)).toBe("a".repeat(59));
    expect(defaultJobName("x".repeat(200))).toHaveLength(60);
  });
});
