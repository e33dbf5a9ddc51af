import { html } from "diff2html";
import { describe, expect, it } from "vitest";

// The Changes view renders an agent's diff as HTML: whatever the agent wrote must stay text.
describe("a hostile diff", () => {
  it("is escaped, never markup", () => {
    const diff = [
      "diff --git a/x.html b/x.html",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/x.html",
      "@@ -0,0 +1,2 @@",
      '+<img src=x onerror="alert(1)">',
      "+<script>alert(2)</script>",
      "",
    ].join("\n");
    const out = html(diff, { drawFileList: false, outputFormat: "line-by-line" });
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<script>");
    expect(out).toContain("&lt;script&gt;");
  });
});
