# python3 reduce_bpe.py full.json strings.json out.json normalize(prepend|replace)
import json, sys, re
full, strings, out, mode = sys.argv[1:5]
j = json.load(open(full))
m = j['model']
vocab = m['vocab']
strings = json.load(open(strings))
added = [a['content'] for a in j['added_tokens']]
keep_added = set()
segments = []
pat = re.compile('(' + '|'.join(re.escape(a) for a in sorted(added, key=len, reverse=True)) + ')')
for s in strings:
    for part in pat.split(s):
        if part in added: keep_added.add(part); continue
        if not part: continue
        n = part.replace(' ', '\u2581')
        if mode == 'prepend': n = '\u2581' + n
        segments.append(n)
keep = set()
for seg in segments:
    for i in range(len(seg)):
        for k in range(i + 1, len(seg) + 1):
            if seg[i:k] in vocab: keep.add(seg[i:k])
for b in range(256): keep.add('<0x%02X>' % b)
keep.add(m['unk_token'])
for name in ['<s>', '</s>', '<unk>', '<pad>', '<eos>', '<bos>', '<mask>']:
    if name in vocab: keep.add(name)
keep |= keep_added
post = json.dumps(j.get('post_processor'))
for a in added:
    if json.dumps(a)[1:-1] in post: keep.add(a)
m['vocab'] = {t: i for t, i in sorted(vocab.items(), key=lambda x: x[1]) if t in keep}
def parts(x): return x.split(' ', 1) if isinstance(x, str) else x
m['merges'] = [x for x in m['merges'] if ''.join(parts(x)) in keep and parts(x)[0] in keep and parts(x)[1] in keep]
j['added_tokens'] = [a for a in j['added_tokens'] if a['content'] in keep]
json.dump(j, open(out, 'w'), ensure_ascii=False, indent=1)
print(len(m['vocab']), 'tokens', len(m['merges']), 'merges', len(j['added_tokens']), 'added')
