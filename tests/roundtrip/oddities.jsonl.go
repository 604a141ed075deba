1	{"seq":1,"time":"2026-10-18T09:30:00.5+02:00","type":"message","message":{"message":{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"toolu_1","name":"calc","input":{"a":1.0,"b":1e5,"c":-0,"d":[1,2],"e":"\u00e9\/x","f":"\u003cb\u003e\u0026amp;\u003c/b\u003e"}}}],"native":{"provider":"anthropic","model":"m","data":{"x":[true,false,null],"y":"tab\tand\u2028"}}},"stop":"tool_use","usage":{"input_tokens":3,"output_tokens":4},"model":"m"}}
2	{"seq":2,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c2","name":"t","input":{"s":"a\u2028b\u2029c","n":123456789012345678901234567890,"f":0.1e-7}}}]},"usage":{"input_tokens":0,"output_tokens":0}}}
3	{"seq":3,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c3","name":"t","input":{"k":1,"k":2}}}]},"usage":{"input_tokens":5,"output_tokens":0}}}
4	{"seq":4,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"user","parts":null},"usage":{"input_tokens":0,"output_tokens":0}}}
5	{"seq":5,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"user","parts":null},"usage":{"input_tokens":0,"output_tokens":0}}}
6	{"seq":6,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"user","parts":[]},"usage":{"input_tokens":0,"output_tokens":0}}}
7	{"seq":7,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"","parts":null},"usage":{"input_tokens":0,"output_tokens":0}}}
8	{"seq":8,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c8","name":"t","input":null}},{"type":"tool_call","tool_call":{"id":"c9","name":"t","input":null}}],"native":{"provider":"openai","model":"m","data":null}},"usage":{"input_tokens":0,"output_tokens":0}}}
9	{"seq":9,"time":"2026-10-18T07:30:00Z","type":"labels","labels":{"labels":null,"source":"seed"}}
10	{"seq":10,"time":"2026-10-18T07:30:00Z","type":"labels","labels":{"labels":[]}}
11	{"seq":11,"time":"2026-10-18T07:30:00Z","type":"labels","labels":{"labels":null}}
12	{"seq":12,"time":"2026-10-18T07:30:00Z","type":"pins","pins":{"pins":null}}
13	{"seq":13,"time":"2026-10-18T07:30:00Z","type":"pins","pins":{"pins":{}}}
14	{"seq":14,"time":"2026-10-18T07:30:00Z","type":"pins","pins":{"pins":{"alpha":"sha256:1","zeta":"sha256:2"}}}
15	{"seq":15,"time":"2026-10-18T07:30:00Z","type":"tool_result","tool_result":{"result":{"call_id":"c1","content":"ok"},"display":{"title":"T","body":"B","labels":null,"sources":null}}}
16	{"seq":16,"time":"2026-10-18T07:30:00Z","type":"tool_result","tool_result":{"result":{"call_id":"c1","content":"ok"},"display":{"title":"T","body":"B","labels":[],"sources":[]}}}
17	{"seq":17,"time":"2026-10-18T07:30:00Z","type":"run_ended","run_ended":{"reason":"completed","refused":[{"call_id":"c1","tool":"t","labels":null}],"turns":0,"usage":{"input_tokens":0,"output_tokens":0}}}
18	{"seq":18,"time":"2026-10-18T07:30:00.12Z","type":"model_error","model_error":{"error":{"kind":"rate_limited","status":429,"message":"slow down","retry_after":"2026-10-18T09:31:00.5+02:00","resets_at":"2026-10-18T01:00:00-07:00"},"retry":true,"wait_ms":30000}}
19	{"seq":19,"time":"2026-10-18T07:30:00Z","type":"model_error","model_error":{"error":{"kind":"overloaded","message":"x"},"retry":false}}
20	{"seq":20,"time":"2026-10-18T13:00:00.000000001+05:30","type":"run_ended","run_ended":{"reason":"model_error","error":{"kind":"unauthorized","status":401,"message":"no","retry_after":"2026-10-18T13:00:00+05:45"},"turns":1,"usage":{"input_tokens":1,"output_tokens":2,"cache_write_tokens":3}}}
21	{"seq":21,"time":"2026-10-18T07:30:00Z","type":"decision","decision":{"call_id":"c1","tool":"t","verdict":"allow","labels":["b","a"]}}
22	{"seq":22,"time":"2026-10-18T07:30:00Z","type":"run_started","run_started":{"prompt":"café / \u003ca href=\"x\"\u003e\u0026\u003c/a\u003e \u0001 � done \u2028"}}
23	{"seq":23,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":[{"type":"text","text":"bad �� byte"}],"native":{"provider":"anthropic","model":"m","data":{"t":"bad � cut","u":"\udc80"}}},"usage":{"input_tokens":0,"output_tokens":0}}}
24	{"seq":24,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c","name":"t","input":"just a string"}},{"type":"tool_call","tool_call":{"id":"d","name":"t","input":42.50}}],"native":{"provider":"p","model":"m","data":[{"a":[]},{}]}},"usage":{"input_tokens":0,"output_tokens":0}}}
25	{"seq":25,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"user","parts":[{"type":"tool_result","tool_result":{"call_id":"c1","content":"r","is_error":true}}]},"usage":{"input_tokens":0,"output_tokens":0}}}
26	{"seq":26,"time":"2026-10-18T07:30:00Z","type":"call_started","call_started":{"call_id":"c1"}}
27	{"seq":27,"time":"2026-10-18T07:30:00Z","type":"run_started","run_started":{}}
28	{"seq":28,"time":"2026-10-18T07:30:00Z","type":"checkpoint"}
29	{"seq":29,"time":"2026-10-18T07:30:00Z","type":"pins","pins":{"pins":{"\u003craw\u003e":"sha256:7","\u003cscript\u003e":"sha256:1","a\"b":"sha256:2","c\\d":"sha256:3","café 😀":"sha256:9","e\u2028f\u2029":"sha256:4","g\u0001\u001fh":"sha256:5","i\u0026j":"sha256:6","tab\there\n":"sha256:8","\u2028raw":"x\u003cy"}}}
30	{"seq":30,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":null,"native":{"provider":"anthropic","model":"claude-x","data":{"stop_reason":"max_tokens","content":[]}}},"stop":"max_tokens","usage":{"input_tokens":10,"output_tokens":4096},"model":"claude-x"}}
31	{"seq":31,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":{"role":"assistant","parts":null,"native":{"provider":"openai","model":"gpt-x","data":{"status":"incomplete"}}},"stop":"max_tokens","usage":{"input_tokens":10,"output_tokens":4096}}}
