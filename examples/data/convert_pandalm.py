# Compact PandaLM human-annotated pairwise test set (+ GPT-3.5 and PandaLM-7B judge labels), no texts.
# usage: python examples/data/convert_pandalm.py GIT_DIR OUT_DIR   (GIT_DIR: a clone of WeOpenML/PandaLM @ 3871806)
import json, subprocess, sys
import pandas as pd
git_dir, out = sys.argv[1], sys.argv[2]
load = lambda p: pd.DataFrame(json.loads(subprocess.run(["git", f"--git-dir={git_dir}", "show", f"HEAD:{p}"],
                                                        check=True, capture_output=True).stdout))
t, g, p = load("data/testset-v1.json"), load("data/gpt-3.5-turbo-testset-v1.json"), load("data/pandalm-7b-testset-v1.json")
assert (t.idx.astype(int).values == g.idx.astype(int).values).all() and (t.idx.astype(int).values == p.idx.astype(int).values).all()
m = t.cmp_key.str.split("_", n=1, expand=True)
df = pd.DataFrame(dict(idx=t.idx.astype(int), model_1=m[0], model_2=m[1], motivation_app=t.motivation_app,
                       annotator1=t.annotator1.astype(int), annotator2=t.annotator2.astype(int), annotator3=t.annotator3.astype(int),
                       gpt35=g.gpt_result.map({"1": "1", "2": "2", "Tie": "0"}).fillna(g.gpt_result),  # 'garbage' kept as is
                       pandalm7b=p.pandalm_result.astype(int)))
df.to_csv(f"{out}/pandalm_testset_labels.csv", index=False)
print(df.shape); print(df.head(3).to_string())
