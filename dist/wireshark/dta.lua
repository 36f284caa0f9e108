-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark dissector for libdta's telemetry traffic (docs/wireshark.md):
--
--   dta  DTA reports, wire format v1 and the research prototype's legacy
--        headers (docs/wire-format.md, lib/src/wire.c), UDP 40040;
--   int  INT telemetry reports v0.5, v1.0 and v2.0 as the translator
--        accepts them (docs/int.md, lib/src/int.c), UDP 32766, with the
--        INT-MD shim and metadata stack found inside the inner packet.
--
-- Every check the library's decoders make is made here too and shown as
-- expert info on the item it concerns; a datagram the translator would
-- reject whole is marked so. Nothing is read before its length is checked,
-- so short or damaged packets never raise a Lua error.
--
-- Written for Wireshark 4.0 (Lua 5.2) and later; only arithmetic is used
-- for bit fields so that Lua 5.1 to 5.4 all run it.

local DTA_PORT = 40040
local INT_PORT = 32766

-- ------------------------------------------------------------------------
-- helpers

-- Bits [shift, shift + n) of v, counting from the least significant bit.
local function bits(v, shift, n)
	return math.floor(v / 2 ^ shift) % 2 ^ n
end

local function band(a, b)
	local r, k = 0, 1
	while a > 0 and b > 0 do
		if a % 2 == 1 and b % 2 == 1 then r = r + k end
		a, b, k = math.floor(a / 2), math.floor(b / 2), k * 2
	end
	return r
end

local function popcount(v)
	local c = 0
	while v > 0 do
		c = c + v % 2
		v = math.floor(v / 2)
	end
	return c
end

-- ------------------------------------------------------------------------
-- DTA reports

local dta = Proto("dta", "Direct Telemetry Access")

local OP_KW, OP_AP, OP_KI, OP_PC = 1, 2, 3, 4
local opcodes = {
	[OP_KW] = "Key-Write",
	[OP_AP] = "Append",
	[OP_KI] = "Key-Increment",
	[OP_PC] = "Postcarding",
}
local formats = {
	[1] = "v1",
	[2] = "legacy (2-byte header)",
	[3] = "legacy NACK build (3-byte header)",
}
local KEY_MAX, DATA_MAX, RED_MAX, HOPS_MAX = 64, 1024, 8, 16
local V1_MAGIC = 0xD1

local df = {
	format = ProtoField.uint8("dta.format", "Format", base.DEC, formats),
	reports = ProtoField.uint16("dta.reports", "Reports in this datagram"),
	valid = ProtoField.bool("dta.valid", "Accepted by the translator's decoder"),
	report = ProtoField.none("dta.report", "Report"),
	version = ProtoField.uint8("dta.version", "Version", base.HEX,
				   { [V1_MAGIC] = "v1" }),
	opcode = ProtoField.uint8("dta.opcode", "Opcode", base.DEC, opcodes),
	flags = ProtoField.uint8("dta.flags", "Flags", base.HEX),
	immediate = ProtoField.bool("dta.flags.immediate", "Immediate", 8, nil, 0x01),
	ack_request = ProtoField.bool("dta.flags.ack_request", "Ack request", 8, nil, 0x02),
	flags_reserved = ProtoField.uint8("dta.flags.reserved", "Reserved flags",
					  base.HEX, nil, 0xFC),
	reserved = ProtoField.uint8("dta.reserved", "Reserved", base.HEX),
	length = ProtoField.uint16("dta.length", "Body length"),
	reporter = ProtoField.uint16("dta.reporter", "Reporter"),
	seq = ProtoField.uint32("dta.seq", "Sequence number"),
	body = ProtoField.bytes("dta.body", "Body"),
	trailing = ProtoField.bytes("dta.trailing", "Bytes after the last report"),

	kw_redundancy = ProtoField.uint8("dta.kw.redundancy", "Redundancy (N)"),
	kw_key_len = ProtoField.uint8("dta.kw.key_len", "Key length"),
	kw_data_len = ProtoField.uint16("dta.kw.data_len", "Data length"),
	kw_key = ProtoField.bytes("dta.kw.key", "Key"),
	kw_data = ProtoField.bytes("dta.kw.data", "Data"),

	pc_hop = ProtoField.uint8("dta.pc.hop", "Hop (0-based)"),
	pc_path_len = ProtoField.uint8("dta.pc.path_len", "Path length", base.DEC,
				       { [0] = "unknown" }),
	pc_key_len = ProtoField.uint8("dta.pc.key_len", "Key length"),
	pc_reserved = ProtoField.uint8("dta.pc.reserved", "Reserved", base.HEX),
	pc_value = ProtoField.uint32("dta.pc.value", "Value"),
	pc_key = ProtoField.bytes("dta.pc.key", "Key"),

	ap_list = ProtoField.uint32("dta.ap.list_id", "List id"),
	ap_data_len = ProtoField.uint16("dta.ap.data_len", "Data length"),
	ap_reserved = ProtoField.uint16("dta.ap.reserved", "Reserved", base.HEX),
	ap_data = ProtoField.bytes("dta.ap.data", "Data"),

	ki_redundancy = ProtoField.uint8("dta.ki.redundancy", "Redundancy (N)"),
	ki_key_len = ProtoField.uint8("dta.ki.key_len", "Key length"),
	ki_reserved = ProtoField.uint16("dta.ki.reserved", "Reserved", base.HEX),
	ki_counter = ProtoField.uint64("dta.ki.counter", "Counter increment"),
	ki_key = ProtoField.bytes("dta.ki.key", "Key"),

	-- A 13- or 37-byte key read as a 5-tuple (docs/keys.md).
	key_src4 = ProtoField.ipv4("dta.key.src", "Source address"),
	key_dst4 = ProtoField.ipv4("dta.key.dst", "Destination address"),
	key_src6 = ProtoField.ipv6("dta.key.src6", "Source address"),
	key_dst6 = ProtoField.ipv6("dta.key.dst6", "Destination address"),
	key_sport = ProtoField.uint16("dta.key.sport", "Source port"),
	key_dport = ProtoField.uint16("dta.key.dport", "Destination port"),
	key_proto = ProtoField.uint8("dta.key.proto", "Protocol"),

	legacy_flags = ProtoField.uint8("dta.legacy.flags", "Flags", base.HEX),
	legacy_immediate = ProtoField.bool("dta.legacy.immediate", "Immediate", 8,
					   nil, 0x80),
	legacy_retransmit = ProtoField.bool("dta.legacy.retransmittable",
					    "Retransmittable", 8, nil, 0x40),
	legacy_seq = ProtoField.uint8("dta.legacy.seq", "Sequence number (8-bit)"),
	legacy_hop = ProtoField.uint8("dta.legacy.hop", "Hop (1-based, as sent)"),
}
local dta_field_list = {}
for _, v in pairs(df) do
	dta_field_list[#dta_field_list + 1] = v
end
dta.fields = dta_field_list

-- One expert field per error code of dta_wire_decode() (lib/include/dta/wire.h).
local de = {
	truncated = ProtoExpert.new("dta.expert.truncated", "Truncated (DTA_E_TRUNCATED)",
				    expert.group.MALFORMED, expert.severity.ERROR),
	malformed = ProtoExpert.new("dta.expert.malformed", "Malformed (DTA_E_MALFORMED)",
				    expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("dta.expert.version", "Unsupported version (DTA_E_VERSION)",
				  expert.group.PROTOCOL, expert.severity.ERROR),
	opcode = ProtoExpert.new("dta.expert.opcode", "Unknown opcode (DTA_E_OPCODE)",
				 expert.group.PROTOCOL, expert.severity.ERROR),
	ambiguous = ProtoExpert.new("dta.expert.ambiguous",
				    "Legacy length fits neither header (DTA_E_AMBIGUOUS)",
				    expert.group.PROTOCOL, expert.severity.ERROR),
	rejected = ProtoExpert.new("dta.expert.rejected",
				   "The translator rejects the whole datagram",
				   expert.group.PROTOCOL, expert.severity.WARN),
	snapped = ProtoExpert.new("dta.expert.snapped",
				  "Capture shorter than the datagram",
				  expert.group.UNDECODED, expert.severity.WARN),
}
dta.experts = { de.truncated, de.malformed, de.version, de.opcode,
		de.ambiguous, de.rejected, de.snapped }

local LEGACY_AUTO, LEGACY_PLAIN, LEGACY_NACK, LEGACY_OFF = 0, 1, 2, 3
dta.prefs.udp_port = Pref.uint("UDP port", DTA_PORT,
	"UDP port of DTA reports (the translator's [translator] port)")
dta.prefs.legacy = Pref.enum("Legacy reports", LEGACY_AUTO,
	"How payloads starting with an opcode 0x01..0x04 are read",
	{
		{ "auto", "By exact length, as the translator does", LEGACY_AUTO },
		{ "plain", "Always the 2-byte header (DTA_DECODE_LEGACY_PLAIN)", LEGACY_PLAIN },
		{ "nack", "Always the 3-byte NACK header (DTA_DECODE_LEGACY_NACK)", LEGACY_NACK },
		{ "off", "Not DTA (DTA_DECODE_NO_LEGACY)", LEGACY_OFF },
	}, false)
dta.prefs.five_tuple = Pref.bool("Show 13/37-byte keys as 5-tuples", true,
	"Decode IPv4 (13-byte) and IPv6 (37-byte) keys as flow 5-tuples (docs/keys.md)")

-- Per-dissection state: the first error decides the verdict.
local st

local function flag(item, ex, text)
	if text then
		item:add_proto_expert_info(ex, text)
	else
		item:add_proto_expert_info(ex)
	end
	st.errors = st.errors + 1
end

local function add_key(tree, tvb, off, klen, avail, field)
	local item = tree:add(field, tvb(off, math.min(klen, avail)))
	if avail < klen or not dta.prefs.five_tuple then
		return item
	end
	if klen == 13 then
		local t = item:add(tvb(off, 13), "As an IPv4 5-tuple")
		t:add(df.key_src4, tvb(off, 4))
		t:add(df.key_dst4, tvb(off + 4, 4))
		t:add(df.key_sport, tvb(off + 8, 2))
		t:add(df.key_dport, tvb(off + 10, 2))
		t:add(df.key_proto, tvb(off + 12, 1))
	elseif klen == 37 then
		local t = item:add(tvb(off, 37), "As an IPv6 5-tuple")
		t:add(df.key_src6, tvb(off, 16))
		t:add(df.key_dst6, tvb(off + 16, 16))
		t:add(df.key_sport, tvb(off + 32, 2))
		t:add(df.key_dport, tvb(off + 34, 2))
		t:add(df.key_proto, tvb(off + 36, 1))
	end
	return item
end

-- Fixed part of a body shorter than its sub-header: show what is there.
local function short_body(tree, tvb, b, blen, need, what)
	local item = blen > 0 and tree:add(df.body, tvb(b, blen)) or tree
	flag(item, de.truncated, string.format(
		"%s body of %d bytes is shorter than its %d-byte sub-header",
		what, blen, need))
end

-- Declared body length against what the sub-header says follows it.
local function check_body_len(tree, blen, need)
	if blen < need then
		flag(tree, de.truncated, string.format(
			"body length %d is shorter than sub-header + key/data (%d)", blen, need))
	elseif blen > need then
		flag(tree, de.malformed, string.format(
			"body length %d is longer than sub-header + key/data (%d)", blen, need))
	end
end

local function check_range(item, v, lo, hi, what)
	if v < lo or v > hi then
		flag(item, de.malformed, string.format("%s %d out of range %d..%d",
						       what, v, lo, hi))
	end
end

-- v1 body at @b, @blen bytes (the declared length, all captured).
local function v1_body(tree, tvb, op, b, blen)
	if op == OP_KW then
		if blen < 4 then return short_body(tree, tvb, b, blen, 4, "Key-Write") end
		local n, kl, dl = tvb(b, 1):uint(), tvb(b + 1, 1):uint(), tvb(b + 2, 2):uint()
		check_range(tree:add(df.kw_redundancy, tvb(b, 1)), n, 1, RED_MAX, "N")
		check_range(tree:add(df.kw_key_len, tvb(b + 1, 1)), kl, 1, KEY_MAX, "key length")
		check_range(tree:add(df.kw_data_len, tvb(b + 2, 2)), dl, 1, DATA_MAX, "data length")
		check_body_len(tree, blen, 4 + kl + dl)
		local rest = blen - 4
		if kl > 0 and rest > 0 then add_key(tree, tvb, b + 4, kl, rest, df.kw_key) end
		rest = rest - kl
		if dl > 0 and rest > 0 then
			tree:add(df.kw_data, tvb(b + 4 + kl, math.min(dl, rest)))
		end
		return string.format("Key-Write N=%d key %dB data %dB", n, kl, dl)
	elseif op == OP_PC then
		if blen < 8 then return short_body(tree, tvb, b, blen, 8, "Postcarding") end
		local hop, pl, kl = tvb(b, 1):uint(), tvb(b + 1, 1):uint(), tvb(b + 2, 1):uint()
		local hi = tree:add(df.pc_hop, tvb(b, 1))
		local pi = tree:add(df.pc_path_len, tvb(b + 1, 1))
		local ki = tree:add(df.pc_key_len, tvb(b + 2, 1))
		local ri = tree:add(df.pc_reserved, tvb(b + 3, 1))
		tree:add(df.pc_value, tvb(b + 4, 4))
		if tvb(b + 3, 1):uint() ~= 0 then flag(ri, de.malformed, "reserved byte not zero") end
		check_range(hi, hop, 0, HOPS_MAX - 1, "hop")
		check_range(pi, pl, 0, HOPS_MAX, "path length")
		if pl ~= 0 and hop >= pl then
			flag(hi, de.malformed, string.format("hop %d not below path length %d", hop, pl))
		end
		check_range(ki, kl, 1, KEY_MAX, "key length")
		check_body_len(tree, blen, 8 + kl)
		if kl > 0 and blen > 8 then add_key(tree, tvb, b + 8, kl, blen - 8, df.pc_key) end
		return string.format("Postcarding hop %d value %d", hop, tvb(b + 4, 4):uint())
	elseif op == OP_AP then
		if blen < 8 then return short_body(tree, tvb, b, blen, 8, "Append") end
		local dl = tvb(b + 4, 2):uint()
		tree:add(df.ap_list, tvb(b, 4))
		check_range(tree:add(df.ap_data_len, tvb(b + 4, 2)), dl, 1, DATA_MAX, "data length")
		local ri = tree:add(df.ap_reserved, tvb(b + 6, 2))
		if tvb(b + 6, 2):uint() ~= 0 then flag(ri, de.malformed, "reserved bytes not zero") end
		check_body_len(tree, blen, 8 + dl)
		if dl > 0 and blen > 8 then tree:add(df.ap_data, tvb(b + 8, math.min(dl, blen - 8))) end
		return string.format("Append list %d", tvb(b, 4):uint())
	else -- OP_KI
		if blen < 12 then return short_body(tree, tvb, b, blen, 12, "Key-Increment") end
		local n, kl = tvb(b, 1):uint(), tvb(b + 1, 1):uint()
		check_range(tree:add(df.ki_redundancy, tvb(b, 1)), n, 1, RED_MAX, "N")
		check_range(tree:add(df.ki_key_len, tvb(b + 1, 1)), kl, 1, KEY_MAX, "key length")
		local ri = tree:add(df.ki_reserved, tvb(b + 2, 2))
		if tvb(b + 2, 2):uint() ~= 0 then flag(ri, de.malformed, "reserved bytes not zero") end
		tree:add(df.ki_counter, tvb(b + 4, 8))
		check_body_len(tree, blen, 12 + kl)
		if kl > 0 and blen > 12 then add_key(tree, tvb, b + 12, kl, blen - 12, df.ki_key) end
		return string.format("Key-Increment N=%d +%s", n, tostring(tvb(b + 4, 8):uint64()))
	end
end

-- A v1 payload: reports back to back until the end.
local function dissect_v1(tvb, root, len)
	local off, n, names = 0, 0, {}
	local first_seq, last_seq, reporter
	while off < len do
		local left = len - off
		if left < 12 then
			local item = root:add(df.trailing, tvb(off, left))
			flag(item, de.truncated, string.format(
				"%d bytes left, shorter than the 12-byte base header", left))
			break
		end
		local ver, op = tvb(off, 1):uint(), tvb(off + 1, 1):uint()
		local body = tvb(off + 4, 2):uint()
		local size = math.min(12 + body, left)
		local rt = root:add(df.report, tvb(off, size))
		rt:set_text(string.format("Report %d", n + 1))
		local vi = rt:add(df.version, tvb(off, 1))
		local oi = rt:add(df.opcode, tvb(off + 1, 1))
		local fi = rt:add(df.flags, tvb(off + 2, 1))
		fi:add(df.immediate, tvb(off + 2, 1))
		fi:add(df.ack_request, tvb(off + 2, 1))
		fi:add(df.flags_reserved, tvb(off + 2, 1))
		local ri = rt:add(df.reserved, tvb(off + 3, 1))
		local li = rt:add(df.length, tvb(off + 4, 2))
		rt:add(df.reporter, tvb(off + 6, 2))
		rt:add(df.seq, tvb(off + 8, 4))
		n = n + 1
		if ver ~= V1_MAGIC then
			-- Without a known version the length cannot be trusted: stop.
			flag(vi, de.version, string.format("version byte 0x%02x, expected 0xd1", ver))
			break
		end
		if not opcodes[op] then
			flag(oi, de.opcode, string.format("opcode %d is not 1..4", op))
		end
		if bits(tvb(off + 2, 1):uint(), 2, 6) ~= 0 then
			flag(fi, de.malformed, "undefined flag bits set")
		end
		if tvb(off + 3, 1):uint() ~= 0 then
			flag(ri, de.malformed, "reserved byte not zero")
		end
		if 12 + body > left then
			flag(li, de.truncated, string.format(
				"body of %d bytes runs past the datagram (%d left)", body, left - 12))
			if left > 12 then rt:add(df.body, tvb(off + 12, left - 12)) end
			break
		end
		local seq = tvb(off + 8, 4):uint()
		first_seq = first_seq or seq
		last_seq = seq
		reporter = reporter or tvb(off + 6, 2):uint()
		if opcodes[op] then
			local text = v1_body(rt, tvb, op, off + 12, body)
			rt:append_text(": " .. (text or opcodes[op]) .. ", seq " .. seq)
			names[#names + 1] = opcodes[op]
		elseif body > 0 then
			rt:add(df.body, tvb(off + 12, body))
		end
		off = off + 12 + body
	end
	local info = string.format("DTA v1 %d report%s", n, n == 1 and "" or "s")
	if #names > 0 then
		local all_same = true
		for i = 2, #names do all_same = all_same and names[i] == names[1] end
		info = info .. " (" .. (all_same and names[1] or "mixed") .. ")"
	end
	if reporter then
		info = info .. string.format(", reporter %d, seq %d", reporter, first_seq)
		if last_seq ~= first_seq then info = info .. "-" .. last_seq end
	end
	return n, info
end

local legacy_sub = { [OP_KW] = 9, [OP_AP] = 8, [OP_KI] = 13, [OP_PC] = 9 }

local function dissect_legacy(tvb, root, len)
	local op = tvb(0, 1):uint()
	local sub, hdr = legacy_sub[op], nil
	local mode = dta.prefs.legacy
	if mode == LEGACY_PLAIN then
		hdr = 2
	elseif mode == LEGACY_NACK then
		hdr = 3
	elseif len == 2 + sub then
		hdr = 2
	elseif len == 3 + sub then
		hdr = 3
	end
	local rt = root:add(df.report, tvb(0, len))
	rt:set_text("Legacy report")
	rt:add(df.opcode, tvb(0, 1))
	if not hdr then
		if len < 2 + sub then
			flag(rt, de.truncated, string.format(
				"%d bytes, shorter than the %d of a legacy %s report",
				len, 2 + sub, opcodes[op]))
		else
			flag(rt, de.ambiguous, string.format(
				"%d bytes: a legacy %s report has %d (2-byte header) or %d (3-byte); " ..
				"set the Legacy reports preference to force one", len, opcodes[op],
				2 + sub, 3 + sub))
		end
		if len > 1 then rt:add(df.body, tvb(1, len - 1)) end
		return 1, "DTA legacy " .. opcodes[op] .. " (undecodable length)"
	end
	root:add(df.format, hdr == 2 and 2 or 3):set_generated()
	if len < hdr + sub then
		flag(rt, de.truncated, string.format("%d bytes, the %d-byte header + %s needs %d",
						     len, hdr, opcodes[op], hdr + sub))
		if len > 1 then rt:add(df.body, tvb(1, len - 1)) end
		return 1, "DTA legacy " .. opcodes[op] .. " (truncated)"
	end
	if len > hdr + sub then
		flag(rt, de.malformed, string.format("%d bytes after the report",
						     len - hdr - sub))
		root:add(df.trailing, tvb(hdr + sub, len - hdr - sub))
	end
	local info = "DTA legacy " .. opcodes[op]
	if hdr == 2 then
		local fi = rt:add(df.legacy_flags, tvb(1, 1))
		fi:add(df.legacy_immediate, tvb(1, 1))
	else
		rt:add(df.legacy_seq, tvb(1, 1))
		local fi = rt:add(df.legacy_flags, tvb(2, 1))
		fi:add(df.legacy_immediate, tvb(2, 1))
		fi:add(df.legacy_retransmit, tvb(2, 1))
		info = info .. ", seq " .. tvb(1, 1):uint()
	end
	local b = hdr
	if op == OP_KW or op == OP_KI then
		local n = tvb(b, 1):uint()
		local ni = rt:add(op == OP_KW and df.kw_redundancy or df.ki_redundancy, tvb(b, 1))
		check_range(ni, n, 1, RED_MAX, "N")
		if op == OP_KW then
			rt:add(df.kw_key, tvb(b + 1, 4))
			rt:add(df.kw_data, tvb(b + 5, 4))
		else
			rt:add(df.ki_key, tvb(b + 1, 4))
			rt:add(df.ki_counter, tvb(b + 5, 8))
		end
	elseif op == OP_AP then
		rt:add(df.ap_list, tvb(b, 4))
		rt:add(df.ap_data, tvb(b + 4, 4))
	else
		rt:add(df.pc_key, tvb(b, 4))
		local raw = tvb(b + 4, 1):uint()
		local hi = rt:add(df.legacy_hop, tvb(b + 4, 1))
		if raw == 0 or raw > HOPS_MAX then
			flag(hi, de.malformed, string.format("legacy hop %d out of range 1..%d",
							     raw, HOPS_MAX))
		else
			rt:add(df.pc_hop, tvb(b + 4, 1), raw - 1):set_generated()
		end
		rt:add(df.pc_value, tvb(b + 5, 4))
	end
	return 1, info
end

function dta.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	pinfo.cols.protocol = "DTA"
	st = { errors = 0 }
	local root = tree:add(dta, tvb())
	if tvb:reported_len() > len then
		root:add_proto_expert_info(de.snapped, string.format(
			"only %d of %d bytes captured; the rest is not decoded",
			len, tvb:reported_len()))
	end
	if len == 0 then
		flag(root, de.truncated, "empty payload")
		root:add(df.valid, false):set_generated()
		pinfo.cols.info = "DTA (empty)"
		return 0
	end
	local first = tvb(0, 1):uint()
	local n, info
	if bits(first, 4, 4) == 0xD then
		root:add(df.format, 1):set_generated()
		n, info = dissect_v1(tvb, root, len)
	elseif legacy_sub[first] and dta.prefs.legacy ~= LEGACY_OFF then
		n, info = dissect_legacy(tvb, root, len)
	else
		local vi = root:add(df.version, tvb(0, 1))
		flag(vi, de.version, string.format(
			"first byte 0x%02x is neither v1 (0xd1) nor a legacy opcode", first))
		n, info = 0, "DTA (unknown version)"
	end
	root:add(df.reports, n):set_generated()
	root:add(df.valid, st.errors == 0):set_generated()
	if st.errors > 0 then
		root:add_proto_expert_info(de.rejected,
			"dta_wire_decode() refuses this datagram: none of its reports is applied")
		info = info .. " [malformed]"
	end
	root:append_text(", " .. info)
	pinfo.cols.info = info
	return len
end

-- Heuristic for v1 on other ports: the base headers must chain exactly to
-- the end of the payload, each with the v1 magic, a known opcode, no
-- undefined flag and a zero reserved byte. Legacy payloads carry no magic
-- and are never claimed by heuristics.
local function dta_heuristic(tvb, pinfo, tree)
	local len, off = tvb:len(), 0
	if len < 18 or tvb:reported_len() ~= len then return false end
	while off < len do
		if len - off < 12 then return false end
		local h = tvb(off, 4):uint()
		local op = bits(h, 16, 8)
		if bits(h, 24, 8) ~= V1_MAGIC or not opcodes[op] or
		   bits(h, 10, 6) ~= 0 or bits(h, 0, 8) ~= 0 then
			return false
		end
		off = off + 12 + tvb(off + 4, 2):uint()
	end
	if off ~= len then return false end
	dta.dissector(tvb, pinfo, tree)
	return true
end

-- ------------------------------------------------------------------------
-- INT telemetry reports

local intp = Proto("int", "INT Telemetry Report")

-- Metadata fields of a 16-bit INT bitmap (v2.0 RepMdBits, INT-MD
-- instructions), and the same of v0.5/v1.0 reports, under @prefix.
local function md_fields(prefix)
	return {
		switch_id = ProtoField.uint32(prefix .. ".switch_id", "Switch id (node id)"),
		ingress_port = ProtoField.uint16(prefix .. ".ingress_port", "Ingress port"),
		egress_port = ProtoField.uint16(prefix .. ".egress_port", "Egress port"),
		hop_latency = ProtoField.uint32(prefix .. ".hop_latency", "Hop latency"),
		queue_id = ProtoField.uint32(prefix .. ".queue_id", "Queue id", base.DEC,
					     nil, 0xFF000000),
		queue_occupancy = ProtoField.uint32(prefix .. ".queue_occupancy",
						    "Queue occupancy", base.DEC, nil, 0x00FFFFFF),
		ingress_ts = ProtoField.uint64(prefix .. ".ingress_ts", "Ingress timestamp"),
		egress_ts = ProtoField.uint64(prefix .. ".egress_ts", "Egress timestamp"),
		l2_ingress_port = ProtoField.uint32(prefix .. ".l2_ingress_port",
						    "Level-2 ingress port"),
		l2_egress_port = ProtoField.uint32(prefix .. ".l2_egress_port",
						   "Level-2 egress port"),
		tx_util = ProtoField.uint32(prefix .. ".tx_util", "Egress port tx utilization"),
		buffer_id = ProtoField.uint32(prefix .. ".buffer_id", "Buffer id", base.DEC,
					      nil, 0xFF000000),
		buffer_occupancy = ProtoField.uint32(prefix .. ".buffer_occupancy",
						     "Buffer occupancy", base.DEC, nil, 0x00FFFFFF),
		drop_queue_id = ProtoField.uint8(prefix .. ".drop_queue_id", "Drop queue id"),
		drop_reason = ProtoField.uint8(prefix .. ".drop_reason", "Drop reason"),
		checksum = ProtoField.uint32(prefix .. ".checksum_complement",
					     "Checksum complement", base.HEX),
		reserved = ProtoField.bytes(prefix .. ".reserved", "Reserved bit's word"),
		ds = ProtoField.bytes(prefix .. ".ds_md", "Domain-specific metadata"),
	}
end

local meta = md_fields("int.meta")  -- the reporting node's own metadata
local hopf = md_fields("int.hop")   -- one INT-MD stack entry
-- Reports carry the node id in their headers and no checksum complement;
-- INT-MD bit 15 is the checksum complement, not a drop word.
meta.switch_id, meta.checksum = nil, nil
hopf.drop_queue_id, hopf.drop_reason = nil, nil

local v05_nproto = { [0] = "Ethernet", [1] = "Drop report header",
		     [2] = "Switch local report header" }
local v10_nprot = { [0] = "Ethernet", [1] = "IPv4", [2] = "IPv6" }
local v20_reptype = { [0] = "Inner Only", [1] = "INT", [2] = "IOAM" }
local v20_intype = { [0] = "None", [1] = "TLV", [2] = "Domain-specific extension",
		     [3] = "Ethernet", [4] = "IPv4", [5] = "IPv6" }
local shim_types = { [1] = "INT-MD", [2] = "INT-Destination", [3] = "INT-MX" }
local shim_npt = { [0] = "original L4 payload follows",
		   [1] = "original UDP destination port",
		   [2] = "original IP protocol" }

local f = {
	version = ProtoField.uint8("int.version", "Report version", base.DEC,
				   { [0] = "0.5", [1] = "1.0", [2] = "2.0" }, 0xF0),
	reports = ProtoField.uint16("int.reports", "Reports in this datagram"),
	valid = ProtoField.bool("int.valid", "Accepted by the translator's decoder"),
	report = ProtoField.none("int.report", "Report"),
	inner = ProtoField.bytes("int.inner", "Inner packet"),
	flow_key = ProtoField.string("int.flow_key", "Flow key (hex, docs/keys.md)"),
	hop_index = ProtoField.uint8("int.hop_index", "Hop index (initial TTL - TTL, 255: unknown)"),

	v05_nproto = ProtoField.uint32("int.v05.nproto", "NProto", base.DEC, v05_nproto,
				       0x0F000000),
	v05_d = ProtoField.bool("int.v05.d", "D (dropped)", 32, nil, 0x00800000),
	v05_q = ProtoField.bool("int.v05.q", "Q (congested queue)", 32, nil, 0x00400000),
	v05_f = ProtoField.bool("int.v05.f", "F (tracked flow)", 32, nil, 0x00200000),
	v05_reserved = ProtoField.uint32("int.v05.reserved", "Reserved", base.HEX, nil,
					 0x001FFFC0),
	v05_hw_id = ProtoField.uint32("int.v05.hw_id", "Hardware id", base.DEC, nil, 0x3F),
	v05_seq = ProtoField.uint32("int.v05.seq", "Sequence number"),
	v05_ingress_ts = ProtoField.uint32("int.v05.ingress_ts", "Ingress timestamp"),
	v05_switch_id = ProtoField.uint32("int.v05.switch_id", "Switch id"),
	v05_pad = ProtoField.uint16("int.v05.pad", "Pad", base.HEX),

	v1_length = ProtoField.uint32("int.v1.length", "Length (words)", base.DEC, nil,
				      0x0F000000),
	v1_nprot = ProtoField.uint32("int.v1.nprot", "NProt", base.DEC, v10_nprot, 0x00E00000),
	v1_rep_md_bits = ProtoField.uint32("int.v1.rep_md_bits", "RepMdBits", base.HEX, nil,
					   0x001F8000),
	v1_reserved = ProtoField.uint32("int.v1.reserved", "Reserved", base.HEX, nil,
					0x00007E00),
	v1_d = ProtoField.bool("int.v1.d", "D (dropped)", 32, nil, 0x00000100),
	v1_q = ProtoField.bool("int.v1.q", "Q (congested queue)", 32, nil, 0x00000080),
	v1_f = ProtoField.bool("int.v1.f", "F (tracked flow)", 32, nil, 0x00000040),
	v1_hw_id = ProtoField.uint32("int.v1.hw_id", "Hardware id", base.DEC, nil, 0x3F),
	v1_switch_id = ProtoField.uint32("int.v1.switch_id", "Switch id"),
	v1_seq = ProtoField.uint32("int.v1.seq", "Sequence number"),
	v1_ingress_ts = ProtoField.uint32("int.v1.ingress_ts", "Ingress timestamp"),

	v2_hw_id = ProtoField.uint32("int.v2.hw_id", "Hardware id", base.DEC, nil, 0x0FC00000),
	v2_seq = ProtoField.uint32("int.v2.seq", "Sequence number", base.DEC, nil, 0x003FFFFF),
	v2_node_id = ProtoField.uint32("int.v2.node_id", "Node id"),
	v2_rep_type = ProtoField.uint8("int.v2.rep_type", "RepType", base.DEC, v20_reptype,
				       0xF0),
	v2_in_type = ProtoField.uint8("int.v2.in_type", "InType", base.DEC, v20_intype, 0x0F),
	v2_report_len = ProtoField.uint8("int.v2.report_len",
					 "Report length (words after the first; 255: to the end)"),
	v2_md_len = ProtoField.uint8("int.v2.md_len", "MD length (words)"),
	v2_d = ProtoField.bool("int.v2.d", "D (dropped)", 8, nil, 0x80),
	v2_q = ProtoField.bool("int.v2.q", "Q (congested queue)", 8, nil, 0x40),
	v2_f = ProtoField.bool("int.v2.f", "F (tracked flow)", 8, nil, 0x20),
	v2_i = ProtoField.bool("int.v2.i", "I (intermediate)", 8, nil, 0x10),
	v2_rsvd = ProtoField.uint8("int.v2.reserved", "Reserved", base.HEX, nil, 0x0F),
	v2_rep_md_bits = ProtoField.uint16("int.v2.rep_md_bits", "RepMdBits", base.HEX),
	v2_domain_id = ProtoField.uint16("int.v2.domain_id", "Domain specific id", base.HEX),
	v2_ds_md_bits = ProtoField.uint16("int.v2.ds_md_bits", "DSMdBits", base.HEX),
	v2_ds_md_status = ProtoField.uint16("int.v2.ds_md_status", "DSMdstatus", base.HEX),

	shim_type = ProtoField.uint8("int.shim.type", "Type", base.DEC, shim_types, 0xF0),
	shim_npt = ProtoField.uint8("int.shim.npt", "NPT", base.DEC, shim_npt, 0x0C),
	shim_rsvd = ProtoField.uint8("int.shim.reserved", "Reserved", base.HEX, nil, 0x03),
	shim_len = ProtoField.uint8("int.shim.length", "Length (words after the shim)"),
	shim_npt_field = ProtoField.uint16("int.shim.npt_field", "NPT-dependent field",
					   base.HEX),
	shim_orig_dport = ProtoField.uint16("int.shim.orig_dport",
					    "Original UDP destination port"),
	shim_orig_proto = ProtoField.uint8("int.shim.orig_proto", "Original IP protocol"),
	md_ver = ProtoField.uint32("int.mdhdr.version", "Version", base.DEC, nil, 0xF0000000),
	md_d = ProtoField.bool("int.mdhdr.d", "D (discard)", 32, nil, 0x08000000),
	md_e = ProtoField.bool("int.mdhdr.e", "E (max hop count exceeded)", 32, nil,
			       0x04000000),
	md_m = ProtoField.bool("int.mdhdr.m", "M (MTU exceeded)", 32, nil, 0x02000000),
	md_rsvd = ProtoField.uint32("int.mdhdr.reserved", "Reserved", base.HEX, nil,
				    0x01FFE000),
	md_hop_ml = ProtoField.uint32("int.mdhdr.hop_ml", "Hop ML (words per hop)",
				      base.DEC, nil, 0x00001F00),
	md_rhc = ProtoField.uint32("int.mdhdr.remaining_hops", "Remaining hop count",
				   base.DEC, nil, 0x000000FF),
	md_instructions = ProtoField.uint16("int.mdhdr.instructions", "Instruction bitmap",
					    base.HEX),
	md_domain_id = ProtoField.uint16("int.mdhdr.domain_id", "Domain specific id",
					 base.HEX),
	md_ds_instruction = ProtoField.uint16("int.mdhdr.ds_instruction",
					      "DS instruction", base.HEX),
	md_ds_flags = ProtoField.uint16("int.mdhdr.ds_flags", "DS flags", base.HEX),
	md_n_hops = ProtoField.uint8("int.mdhdr.n_hops", "Hops in the stack"),
	-- INT v1.0 / v0.5 layout (8-bit shim Type; INT.mdk telemetry_v1.0 and
	-- telemetry_v0.5 "INT over TCP/UDP")
	shim8_type = ProtoField.uint8("int.shim.type8", "Type (8 bits, INT v0.5/v1.0)", base.DEC,
				      { [1] = "Hop-by-hop", [2] = "Destination" }),
	shim8_rsvd = ProtoField.uint8("int.shim.reserved8", "Reserved", base.HEX),
	shim8_len = ProtoField.uint8("int.shim.length_all",
				     "Length (words with the shim, and the v0.5 tail)"),
	shim8_dscp = ProtoField.uint8("int.shim.dscp", "DSCP / Reserved", base.HEX),
	md_rep = ProtoField.uint32("int.mdhdr.rep", "Rep (replication)", base.DEC, nil, 0x0C000000),
	md_c = ProtoField.bool("int.mdhdr.c", "C (copy)", 32, nil, 0x02000000),
	md1_e = ProtoField.bool("int.mdhdr.e1", "E (max hop count exceeded)", 32, nil, 0x01000000),
	md1_m = ProtoField.bool("int.mdhdr.m1", "M (MTU exceeded, v1.0)", 32, nil, 0x00800000),
	md05_ins_cnt = ProtoField.uint32("int.mdhdr.ins_cnt", "Instruction count (v0.5)",
					 base.DEC, nil, 0x001F0000),
	md05_max = ProtoField.uint32("int.mdhdr.max_hops", "Max hop count (v0.5)", base.DEC, nil,
				     0x0000FF00),
	md05_total = ProtoField.uint32("int.mdhdr.total_hops", "Total hop count (v0.5)",
				       base.DEC, nil, 0x000000FF),
	md1_rsvd16 = ProtoField.uint16("int.mdhdr.reserved16", "Reserved", base.HEX),
	tail_proto = ProtoField.uint8("int.tail.proto", "Tail: IP protocol (v0.5)"),
	tail_dport = ProtoField.uint16("int.tail.dport", "Tail: original destination port (v0.5)"),
	tail_dscp = ProtoField.uint8("int.tail.dscp", "Tail: DSCP / Reserved", base.HEX),
	sink_hop = ProtoField.uint32("int.sink_hop",
				     "Path's last hop: the sink's header metadata (node id)"),
	hop = ProtoField.uint8("int.hop", "Hop (stack position, 0 newest)"),
	orig_sport = ProtoField.uint16("int.shim.orig_l4_sport", "Original L4 source port"),
	orig_dport = ProtoField.uint16("int.shim.orig_l4_dport", "Original L4 destination port"),
}
local int_field_list = {}
for _, v in pairs(f) do int_field_list[#int_field_list + 1] = v end
for _, v in pairs(meta) do int_field_list[#int_field_list + 1] = v end
for _, v in pairs(hopf) do int_field_list[#int_field_list + 1] = v end
intp.fields = int_field_list

-- One expert field per error code of dta_int_decode() (docs/int.md).
local ie = {
	truncated = ProtoExpert.new("int.expert.truncated", "Truncated (DTA_E_TRUNCATED)",
				    expert.group.MALFORMED, expert.severity.ERROR),
	version = ProtoExpert.new("int.expert.version", "Unsupported version (DTA_E_VERSION)",
				  expert.group.PROTOCOL, expert.severity.ERROR),
	unsupported = ProtoExpert.new("int.expert.unsupported",
				      "Not supported (DTA_E_INT_UNSUPPORTED)",
				      expert.group.UNDECODED, expert.severity.ERROR),
	length = ProtoExpert.new("int.expert.length",
				 "Length fields disagree (DTA_E_INT_LENGTH)",
				 expert.group.MALFORMED, expert.severity.ERROR),
	hops = ProtoExpert.new("int.expert.hops", "Too many INT-MD hops (DTA_E_INT_HOPS)",
			       expert.group.MALFORMED, expert.severity.ERROR),
	malformed = ProtoExpert.new("int.expert.malformed", "Malformed (DTA_E_MALFORMED)",
				    expert.group.MALFORMED, expert.severity.ERROR),
	rejected = ProtoExpert.new("int.expert.rejected",
				   "The translator rejects the whole datagram",
				   expert.group.PROTOCOL, expert.severity.WARN),
	snapped = ProtoExpert.new("int.expert.snapped", "Capture shorter than the datagram",
				  expert.group.UNDECODED, expert.severity.WARN),
}
intp.experts = { ie.truncated, ie.version, ie.unsupported, ie.length, ie.hops,
		 ie.malformed, ie.rejected, ie.snapped }

intp.prefs.udp_port = Pref.uint("UDP port", INT_PORT,
	"UDP port of INT reports (the translator's [int] port)")
intp.prefs.inner = Pref.bool("Dissect the inner packet", true,
	"Hand the inner Ethernet/IPv4/IPv6 packet to Wireshark's dissectors")
intp.prefs.dscp_mask = Pref.uint("INT DSCP mask", 0x01,
	"INT-MD follows TCP/UDP when (DSCP & mask) == value (dta_int_opts.dscp_mask; 0: off)")
intp.prefs.dscp_value = Pref.uint("INT DSCP value", 0x01, "dta_int_opts.dscp_value")
intp.prefs.md_udp_port = Pref.uint("INT-MD UDP port", 0,
	"INT-MD follows UDP to this destination port (dta_int_opts.udp_port; 0: off)")
intp.prefs.ttl_init = Pref.uint("Initial TTL", 0,
	"Hop index = initial TTL - TTL (dta_int_opts.ttl_init; 0: guess 32/64/128/255)")

local ist -- per-dissection state

local function iflag(item, ex, text)
	item:add_proto_expert_info(ex, text)
	ist.errors = ist.errors + 1
end

-- Words field @n of a 16-bit bitmap takes in @layout: "report" (v2.0
-- RepMdBits) and "v2" (INT v2.x stack) give bits 4..6 8 bytes; "v10" (INT
-- v1.0: 32-bit timestamps) only bit 6; "v05" every value 4 bytes.
local function field_words(n, layout)
	if layout == "v05" then return 1 end
	if layout == "v10" then return n == 6 and 2 or 1 end
	return (n >= 4 and n <= 6) and 2 or 1
end

local function bitmap16_words(b, layout)
	local w = 0
	for n = 0, 15 do
		if bits(b, 15 - n, 1) == 1 then
			w = w + field_words(n, layout or "report")
		end
	end
	return w
end

-- Fields of a 16-bit bitmap at @off (all bitmap16_words(@b, @layout) words
-- captured, which the caller checked). A stack (@layout not "report"): bit
-- 0 is Node ID and bit 15 the Checksum Complement rather than reserved and
-- drop (v2.0 report); v0.5 bit 6 and v0.5/v1.0 bit 8 are reserved there.
local function md16(tree, tvb, off, b, layout, F)
	local int_md = layout ~= "report"
	for n = 0, 15 do
		if bits(b, 15 - n, 1) == 1 then
			local w = field_words(n, layout) * 4
			local r = tvb(off, w)
			if n == 0 then
				tree:add(int_md and F.switch_id or F.reserved, r)
			elseif n == 1 then
				tree:add(F.ingress_port, tvb(off, 2))
				tree:add(F.egress_port, tvb(off + 2, 2))
			elseif n == 2 then
				tree:add(F.hop_latency, r)
			elseif n == 3 then
				tree:add(F.queue_id, r)
				tree:add(F.queue_occupancy, r)
			elseif n == 4 then
				tree:add(F.ingress_ts, r)
			elseif n == 5 then
				tree:add(F.egress_ts, r)
			elseif n == 6 and layout == "v05" then
				tree:add(F.reserved, r)
			elseif n == 6 then
				tree:add(F.l2_ingress_port, tvb(off, 4))
				tree:add(F.l2_egress_port, tvb(off + 4, 4))
			elseif n == 7 then
				tree:add(F.tx_util, r)
			elseif n == 8 and (layout == "v05" or layout == "v10") then
				tree:add(F.reserved, r)
			elseif n == 8 then
				tree:add(F.buffer_id, r)
				tree:add(F.buffer_occupancy, r)
			elseif n == 15 and int_md then
				tree:add(F.checksum, r)
			elseif n == 15 then
				tree:add(F.drop_queue_id, tvb(off, 1))
				tree:add(F.drop_reason, tvb(off + 1, 1))
			else
				tree:add(F.reserved, r)
			end
			off = off + w
		end
	end
	return off
end

-- @stack bytes of @hop_ml-word hops at @o, newest first (read_stack() in
-- lib/src/int.c): the hop count, or nil after flagging an error.
local function md_stack(t, mi, tvb, o, stack, hop_ml, inst, layout)
	local hop_bytes = hop_ml * 4
	local need = bitmap16_words(inst, layout)
	if stack > 0 and (hop_bytes == 0 or stack % hop_bytes ~= 0) then
		return iflag(mi, ie.length, string.format(
			"stack of %d bytes is not a whole number of %d-byte hops", stack, hop_bytes))
	end
	if stack > 0 and need > hop_ml then
		return iflag(mi, ie.length, string.format(
			"Hop ML %d words, the instruction bitmap asks for %d", hop_ml, need))
	end
	local n = stack > 0 and stack / hop_bytes or 0
	if n > 16 then
		return iflag(mi, ie.hops, string.format("%d hops, at most 16 are read", n))
	end
	t:add(f.md_n_hops, n):set_generated()
	for i = 0, n - 1 do
		local q = o + i * hop_bytes
		local ht = t:add(f.hop, tvb(q, hop_bytes), i)
		ht:set_text(string.format("Hop %d%s", i, i == 0 and " (newest, nearest the sink)" or
					  (i == n - 1 and " (first hop of the path)" or "")))
		local e = md16(ht, tvb, q, inst, layout, hopf)
		if e < q + hop_bytes then ht:add(hopf.ds, tvb(e, q + hop_bytes - e)) end
	end
	return n
end

-- INT v1.0 / v0.5 (8-bit shim Type 1 at @p; parse_int_md_v1() in
-- lib/src/int.c): the metadata header's Ver tells them apart.
local function dissect_int_md_v1(t, tvb, p, len, by_port)
	local words = tvb(p + 2, 1):uint()
	local total = words * 4
	t:set_len(math.min(math.max(total, 4), len))
	local shim = t:add(tvb(p, 4), "Shim (INT v0.5/v1.0)")
	shim:add(f.shim8_type, tvb(p, 1))
	shim:add(f.shim8_rsvd, tvb(p + 1, 1))
	local li = shim:add(f.shim8_len, tvb(p + 2, 1))
	shim:add(f.shim8_dscp, tvb(p + 3, 1))
	if len < total then
		return iflag(li, ie.truncated, string.format(
			"shim Length %d words runs past the inner packet (%d bytes left)", words, len))
	end
	if total < 12 then
		return iflag(li, ie.length, string.format(
			"shim Length %d words is below shim and 2-word metadata header", words))
	end
	local h = p + 4
	local hdr = t:add(tvb(h, 8), "Metadata header")
	local vi = hdr:add(f.md_ver, tvb(h, 4))
	local ver = bits(tvb(h, 1):uint(), 4, 4)
	local inst = tvb(h + 4, 2):uint()
	hdr:add(f.md_rep, tvb(h, 4))
	hdr:add(f.md_c, tvb(h, 4))
	hdr:add(f.md1_e, tvb(h, 4))
	local flow = {}
	local n
	if ver == 1 then
		hdr:add(f.md1_m, tvb(h, 4))
		local mi = hdr:add(f.md_hop_ml, tvb(h, 4))
		hdr:add(f.md_rhc, tvb(h, 4))
		hdr:add(f.md_instructions, tvb(h + 4, 2))
		hdr:add(f.md1_rsvd16, tvb(h + 6, 2))
		n = md_stack(t, mi, tvb, h + 8, total - 12, bits(tvb(h + 2, 1):uint(), 0, 5),
			     inst, "v10")
	elseif ver == 0 then
		local ci = hdr:add(f.md05_ins_cnt, tvb(h, 4))
		hdr:add(f.md05_max, tvb(h, 4))
		hdr:add(f.md05_total, tvb(h, 4))
		hdr:add(f.md_instructions, tvb(h + 4, 2))
		hdr:add(f.md1_rsvd16, tvb(h + 6, 2))
		if total < 16 then
			return iflag(li, ie.length, string.format(
				"shim Length %d words leaves no room for the v0.5 tail", words))
		end
		local ins = bits(tvb(h + 1, 1):uint(), 0, 5)
		local thops = tvb(h + 3, 1):uint()
		local stack = total - 16
		local ones = 0
		for b = 0, 15 do ones = ones + bits(inst, b, 1) end
		if ones ~= ins or stack ~= thops * ins * 4 then
			return iflag(ci, ie.length, string.format(
				"Instruction count %d, bitmap ones %d, stack %d bytes for %d hops",
				ins, ones, stack, thops))
		end
		n = md_stack(t, ci, tvb, h + 8, stack, ins, inst, "v05")
		if n then
			local tl = p + total - 4
			local tt = t:add(tvb(tl, 4), "Tail")
			tt:add(f.tail_proto, tvb(tl, 1))
			tt:add(f.tail_dport, tvb(tl + 1, 2))
			tt:add(f.tail_dscp, tvb(tl + 3, 1))
			if by_port then flow.dport = tvb(tl + 1, 2):uint() end
		end
	else
		return iflag(vi, ie.version, string.format(
			"INT-MD metadata Ver %d after an 8-bit shim Type, only 0 (v0.5) and 1 (v1.0)", ver))
	end
	if not n then return end
	if n > 0 and bits(inst, 15, 1) == 1 then flow.top_switch = tvb(h + 8, 4):uint() end
	flow.n = n
	return n, flow
end

-- The INT shim, metadata header and stack at @p, @len bytes to the end of
-- the inner packet (parse_int_md() in lib/src/int.c). The shim's first byte
-- picks the layout: 0x01 an 8-bit Type 1 (INT v0.5/v1.0), 0x1X a 4-bit
-- Type 1 (INT v2.x).
local function dissect_int_md(tree, tvb, p, len, by_port)
	local t = tree:add(tvb(p, math.max(0, math.min(len, 4))), "INT-MD (after the inner L4 header)")
	if len < 4 then
		iflag(t, ie.truncated, string.format("%d bytes left for the 4-byte INT shim", len))
		return
	end
	local b0 = tvb(p, 1):uint()
	if b0 == 1 then return dissect_int_md_v1(t, tvb, p, len, by_port) end
	local typ, npt, words = bits(b0, 4, 4), bits(b0, 2, 2), tvb(p + 1, 1):uint()
	local total = 4 + words * 4
	t:set_len(math.min(total, len))
	local shim = t:add(tvb(p, 4), "Shim")
	local ti = shim:add(f.shim_type, tvb(p, 1))
	shim:add(f.shim_npt, tvb(p, 1))
	shim:add(f.shim_rsvd, tvb(p, 1))
	local li = shim:add(f.shim_len, tvb(p + 1, 1))
	if by_port and npt == 1 then
		shim:add(f.shim_orig_dport, tvb(p + 2, 2))
	elseif by_port and npt == 2 then
		shim:add(f.shim_orig_proto, tvb(p + 3, 1))
	else
		shim:add(f.shim_npt_field, tvb(p + 2, 2))
	end
	if typ ~= 1 then
		return iflag(ti, ie.unsupported, string.format("shim Type %d, only 1 (INT-MD) is read", typ))
	end
	if len < total then
		return iflag(li, ie.truncated, string.format(
			"shim Length %d words runs past the inner packet (%d bytes left)", words, len - 4))
	end
	if total < 16 then
		return iflag(li, ie.length, string.format(
			"shim Length %d words is below the 3-word metadata header", words))
	end
	if by_port and npt == 3 then
		return iflag(shim, ie.unsupported, "NPT 3")
	end
	local h = p + 4
	local hdr = t:add(tvb(h, 12), "Metadata header")
	local vi = hdr:add(f.md_ver, tvb(h, 4))
	hdr:add(f.md_d, tvb(h, 4))
	hdr:add(f.md_e, tvb(h, 4))
	hdr:add(f.md_m, tvb(h, 4))
	hdr:add(f.md_rsvd, tvb(h, 4))
	local mi = hdr:add(f.md_hop_ml, tvb(h, 4))
	hdr:add(f.md_rhc, tvb(h, 4))
	hdr:add(f.md_instructions, tvb(h + 4, 2))
	hdr:add(f.md_domain_id, tvb(h + 6, 2))
	hdr:add(f.md_ds_instruction, tvb(h + 8, 2))
	hdr:add(f.md_ds_flags, tvb(h + 10, 2))
	local ver = bits(tvb(h, 1):uint(), 4, 4)
	if ver ~= 2 then
		return iflag(vi, ie.version, string.format(
			"INT-MD metadata Ver %d after a 4-bit shim Type, only 2 is read", ver))
	end
	local inst = tvb(h + 4, 2):uint()
	local n = md_stack(t, mi, tvb, h + 12, total - 16, bits(tvb(h + 2, 1):uint(), 0, 5),
			   inst, "v2")
	if not n then return end
	-- What NPT changes in the flow (parse_int_md() in lib/src/int.c).
	local flow = { n = n }
	if n > 0 and bits(inst, 15, 1) == 1 then flow.top_switch = tvb(h + 12, 4):uint() end
	if by_port and npt == 1 then
		flow.dport = tvb(p + 2, 2):uint()
	elseif by_port and npt == 2 then
		flow.proto, flow.sport, flow.dport = tvb(p + 3, 1):uint(), 0, 0
		if flow.proto == 6 or flow.proto == 17 then
			if len < total + 4 then
				return iflag(t, ie.truncated, "original L4 ports missing after the stack")
			end
			t:add(f.orig_sport, tvb(p + total, 2))
			t:add(f.orig_dport, tvb(p + total + 2, 2))
			flow.sport, flow.dport = tvb(p + total, 2):uint(), tvb(p + total + 2, 2):uint()
		end
	end
	return n, flow
end

local function hop_index(ttl)
	local init = intp.prefs.ttl_init
	if init == 0 then
		for _, g in ipairs({ 32, 64, 128, 255 }) do
			if g >= ttl then init = g break end
		end
	end
	if ttl > init then return 255 end
	return init - ttl
end

-- Inner packet at @p, @len bytes, first header @first (3 Ethernet, 4 IPv4,
-- 5 IPv6: the v2.0 InType values). Hands it to Wireshark's dissectors and
-- reads what the library reads from it (parse_inner() in lib/src/int.c).
local eth_dis, ip_dis, ip6_dis
local function dissect_inner(tree, tvb, pinfo, p, len, first)
	local it = tree:add(f.inner, tvb(p, math.max(len, 0)))
	if not eth_dis then
		eth_dis = Dissector.get("eth_withoutfcs")
		ip_dis = Dissector.get("ip")
		ip6_dis = Dissector.get("ipv6")
	end
	if intp.prefs.inner and len > 0 then
		local d = first == 3 and eth_dis or (first == 4 and ip_dis or ip6_dis)
		if d then
			-- Inner headers must not take over the outer packet's columns
			-- and addresses: keep them and put them back afterwards.
			local src, dst = pinfo.src, pinfo.dst
			local sport, dport = pinfo.src_port, pinfo.dst_port
			pcall(d.call, d, tvb(p, len):tvb(), pinfo, it)
			pinfo.src, pinfo.dst = src, dst
			pinfo.src_port, pinfo.dst_port = sport, dport
		end
	end
	local off, e = p, p + len
	if first == 3 then
		if len < 14 then
			return iflag(it, ie.truncated, string.format("%d bytes, an Ethernet header has 14", len))
		end
		local et = tvb(off + 12, 2):uint()
		off = off + 14
		local tags = 0
		while et == 0x8100 or et == 0x88A8 or et == 0x9100 do
			if tags == 4 then
				return iflag(it, ie.unsupported, "more than 4 VLAN tags")
			end
			if e - off < 4 then
				return iflag(it, ie.truncated, "VLAN tag cut short")
			end
			et = tvb(off + 2, 2):uint()
			off = off + 4
			tags = tags + 1
		end
		if et == 0x0800 then first = 4
		elseif et == 0x86DD then first = 5
		else return end -- not IP: no flow, not an error
	end
	local dscp, ttl, proto, l4
	local ports = true
	if first == 4 then
		if e - off < 20 then
			return iflag(it, ie.truncated, "inner IPv4 header cut short")
		end
		local b0 = tvb(off, 1):uint()
		local ihl = bits(b0, 0, 4) * 4
		if bits(b0, 4, 4) ~= 4 or ihl < 20 then
			return iflag(it, ie.malformed, "inner IPv4 version or IHL wrong")
		end
		if e - off < ihl then
			return iflag(it, ie.truncated, "inner IPv4 options cut short")
		end
		dscp = bits(tvb(off + 1, 1):uint(), 2, 6)
		ttl = tvb(off + 8, 1):uint()
		proto = tvb(off + 9, 1):uint()
		ports = bits(tvb(off + 6, 2):uint(), 0, 13) == 0
		l4 = off + ihl
	else
		if e - off < 40 then
			return iflag(it, ie.truncated, "inner IPv6 header cut short")
		end
		local w = tvb(off, 2):uint()
		if bits(w, 12, 4) ~= 6 then
			return iflag(it, ie.malformed, "inner IPv6 version wrong")
		end
		dscp = bits(w, 6, 6)
		ttl = tvb(off + 7, 1):uint()
		local nh = tvb(off + 6, 1):uint()
		l4 = off + 40
		local i = 0
		while nh == 0 or nh == 43 or nh == 60 or nh == 44 do
			if i == 8 then
				return iflag(it, ie.unsupported, "more than 8 IPv6 extension headers")
			end
			if e - l4 < 8 then
				return iflag(it, ie.truncated, "IPv6 extension header cut short")
			end
			local next_nh = tvb(l4, 1):uint()
			if nh == 44 then
				if bits(tvb(l4 + 2, 2):uint(), 3, 13) ~= 0 then ports = false end
				l4 = l4 + 8
			else
				l4 = l4 + (tvb(l4 + 1, 1):uint() + 1) * 8
				if l4 > e then
					return iflag(it, ie.truncated, "IPv6 extension header cut short")
				end
			end
			nh = next_nh
			i = i + 1
		end
		proto = nh
	end
	local hi = it:add(f.hop_index, hop_index(ttl))
	hi:set_generated()
	-- The flow key the translator derives (docs/int.md "Keys"): addresses,
	-- ports (0 without them), protocol; shown once the INT-MD shim had its
	-- say about ports and protocol.
	local addrs = first == 4 and tvb(off + 12, 8):raw() or tvb(off + 8, 32):raw()
	local function add_flow_key(sport, dport, pr)
		local k = addrs .. string.char(math.floor(sport / 256), sport % 256,
					       math.floor(dport / 256), dport % 256, pr)
		k = k:gsub(".", function(c) return string.format("%02x", c:byte()) end)
		it:add(f.flow_key, k):set_generated()
	end
	if not ports or (proto ~= 6 and proto ~= 17) then return add_flow_key(0, 0, proto) end
	local l4len = proto == 17 and 8 or 20
	if e - l4 < l4len then
		return iflag(it, ie.truncated, "inner TCP/UDP header cut short")
	end
	if proto == 6 then
		l4len = bits(tvb(l4 + 12, 1):uint(), 4, 4) * 4
		if l4len < 20 then
			return iflag(it, ie.malformed, "inner TCP data offset below 5")
		end
		if e - l4 < l4len then
			return iflag(it, ie.truncated, "inner TCP options cut short")
		end
	end
	local mdport = intp.prefs.md_udp_port
	local by_port = proto == 17 and mdport ~= 0 and tvb(l4 + 2, 2):uint() == mdport
	local mask = intp.prefs.dscp_mask
	local by_dscp = mask ~= 0 and band(dscp, mask) == intp.prefs.dscp_value
	local sport, dport = tvb(l4, 2):uint(), tvb(l4 + 2, 2):uint()
	if by_port or by_dscp then
		local _, flow = dissect_int_md(tree, tvb, l4 + l4len, e - (l4 + l4len), by_port)
		if not flow then return end -- an error: the datagram is refused
		sport, dport = flow.sport or sport, flow.dport or dport
		proto = flow.proto or proto
		add_flow_key(sport, dport, proto)
		return flow
	end
	add_flow_key(sport, dport, proto)
end

local function dissect_v05(tvb, pinfo, root, len)
	local rt = root:add(f.report, tvb(0, math.min(len, 12)))
	rt:set_text("Telemetry report v0.5")
	if len < 12 then
		iflag(rt, ie.truncated, string.format("%d bytes, the v0.5 header has 12", len))
		return 1, "INT v0.5 (truncated)"
	end
	rt:set_len(len)
	local w = tvb(0, 4)
	rt:add(f.version, tvb(0, 1))
	local ni = rt:add(f.v05_nproto, w)
	rt:add(f.v05_d, w)
	rt:add(f.v05_q, w)
	rt:add(f.v05_f, w)
	rt:add(f.v05_reserved, w)
	rt:add(f.v05_hw_id, w)
	rt:add(f.v05_seq, tvb(4, 4))
	rt:add(f.v05_ingress_ts, tvb(8, 4))
	local nproto = bits(tvb(0, 1):uint(), 0, 4)
	local off = 12
	local info = string.format("INT v0.5 seq %d", tvb(4, 4):uint())
	if nproto == 1 then
		local t = rt:add(tvb(off, math.min(12, len - off)), "Drop report header")
		if len < off + 12 then
			iflag(t, ie.truncated, "drop report header cut short")
			return 1, info
		end
		t:add(f.v05_switch_id, tvb(off, 4))
		t:add(meta.ingress_port, tvb(off + 4, 2))
		t:add(meta.egress_port, tvb(off + 6, 2))
		t:add(meta.drop_queue_id, tvb(off + 8, 1))
		t:add(meta.drop_reason, tvb(off + 9, 1))
		t:add(f.v05_pad, tvb(off + 10, 2))
		info = info .. string.format(", switch %d, drop reason %d",
					     tvb(off, 4):uint(), tvb(off + 9, 1):uint())
		off = off + 12
	elseif nproto == 2 then
		local t = rt:add(tvb(off, math.min(16, len - off)), "Switch local report header")
		if len < off + 16 then
			iflag(t, ie.truncated, "switch local report header cut short")
			return 1, info
		end
		t:add(f.v05_switch_id, tvb(off, 4))
		t:add(meta.ingress_port, tvb(off + 4, 2))
		t:add(meta.egress_port, tvb(off + 6, 2))
		t:add(meta.queue_id, tvb(off + 8, 4))
		t:add(meta.queue_occupancy, tvb(off + 8, 4))
		t:add(meta.egress_ts, tvb(off + 12, 4))
		info = info .. string.format(", switch %d", tvb(off, 4):uint())
		off = off + 16
	elseif nproto ~= 0 then
		iflag(ni, ie.unsupported, string.format("NProto %d, only 0..2 are read", nproto))
		return 1, info
	end
	dissect_inner(rt, tvb, pinfo, off, len - off, 3)
	return 1, info
end

local v10_md = {
	{ 0x20, "ports" }, { 0x10, "hop_latency" }, { 0x08, "queue" },
	{ 0x04, "egress_ts" }, { 0x02, "drop" }, { 0x01, "tx_util" },
}

local function dissect_v10(tvb, pinfo, root, len)
	local rt = root:add(f.report, tvb(0, math.min(len, 16)))
	rt:set_text("Telemetry report v1.0")
	if len < 16 then
		iflag(rt, ie.truncated, string.format("%d bytes, the v1.0 header has 16", len))
		return 1, "INT v1.0 (truncated)"
	end
	rt:set_len(len)
	local w = tvb(0, 4)
	local w0 = w:uint()
	rt:add(f.version, tvb(0, 1))
	local li = rt:add(f.v1_length, w)
	local ni = rt:add(f.v1_nprot, w)
	rt:add(f.v1_rep_md_bits, w)
	rt:add(f.v1_reserved, w)
	rt:add(f.v1_d, w)
	rt:add(f.v1_q, w)
	rt:add(f.v1_f, w)
	rt:add(f.v1_hw_id, w)
	rt:add(f.v1_switch_id, tvb(4, 4))
	rt:add(f.v1_seq, tvb(8, 4))
	rt:add(f.v1_ingress_ts, tvb(12, 4))
	local hlen = bits(w0, 24, 4) * 4
	local nprot = bits(w0, 21, 3)
	local mdbits = bits(w0, 15, 6)
	local info = string.format("INT v1.0 switch %d seq %d", tvb(4, 4):uint(), tvb(8, 4):uint())
	local words = popcount(mdbits)
	if hlen ~= 16 + words * 4 then
		iflag(li, ie.length, string.format(
			"Length %d words, but 4 + %d RepMdBits words = %d", hlen / 4, words, 4 + words))
		return 1, info
	end
	if len < hlen then
		iflag(li, ie.truncated, "metadata runs past the datagram")
		return 1, info
	end
	if nprot > 2 then
		iflag(ni, ie.unsupported, string.format("NProt %d, only 0..2 are read", nprot))
		return 1, info
	end
	local off = 16
	if words > 0 then
		local t = rt:add(tvb(16, words * 4), "Metadata")
		for _, m in ipairs(v10_md) do
			if bits(mdbits, 0, 6) % (m[1] * 2) >= m[1] then
				local k = m[2]
				if k == "ports" then
					t:add(meta.ingress_port, tvb(off, 2))
					t:add(meta.egress_port, tvb(off + 2, 2))
				elseif k == "queue" then
					t:add(meta.queue_id, tvb(off, 4))
					t:add(meta.queue_occupancy, tvb(off, 4))
				elseif k == "drop" then
					t:add(meta.drop_queue_id, tvb(off, 1))
					t:add(meta.drop_reason, tvb(off + 1, 1))
					info = info .. ", drop reason " .. tvb(off + 1, 1):uint()
				else
					t:add(meta[k], tvb(off, 4))
				end
				off = off + 4
			end
		end
	end
	dissect_inner(rt, tvb, pinfo, off, len - off, ({ [0] = 3, [1] = 4, [2] = 5 })[nprot])
	return 1, info
end

local function dissect_v20(tvb, pinfo, root, len)
	local g = root:add(tvb(0, math.min(len, 8)), "Group header")
	if len < 12 then
		iflag(g, ie.truncated, string.format(
			"%d bytes, a v2.0 group header and one report header take 12", len))
		return 0, "INT v2.0 (truncated)"
	end
	local w = tvb(0, 4)
	g:add(f.version, tvb(0, 1))
	g:add(f.v2_hw_id, w)
	g:add(f.v2_seq, w)
	g:add(f.v2_node_id, tvb(4, 4))
	local info = string.format("INT v2.0 node %d seq %d", tvb(4, 4):uint(),
				   bits(w:uint(), 0, 22))
	local off, n, flags = 8, 0, {}
	while off < len do
		local left = len - off
		n = n + 1
		local rt = root:add(f.report, tvb(off, math.min(left, 4)))
		rt:set_text(string.format("Report %d", n))
		if left < 4 then
			iflag(rt, ie.truncated, string.format("%d bytes left for a 4-byte report header", left))
			break
		end
		local t0, rl, ml, fl = tvb(off, 1):uint(), tvb(off + 1, 1):uint(),
				       tvb(off + 2, 1):uint(), tvb(off + 3, 1):uint()
		local rep_type, in_type = bits(t0, 4, 4), bits(t0, 0, 4)
		rt:add(f.v2_rep_type, tvb(off, 1))
		rt:add(f.v2_in_type, tvb(off, 1))
		local rli = rt:add(f.v2_report_len, tvb(off + 1, 1))
		local mli = rt:add(f.v2_md_len, tvb(off + 2, 1))
		rt:add(f.v2_d, tvb(off + 3, 1))
		rt:add(f.v2_q, tvb(off + 3, 1))
		rt:add(f.v2_f, tvb(off + 3, 1))
		rt:add(f.v2_i, tvb(off + 3, 1))
		rt:add(f.v2_rsvd, tvb(off + 3, 1))
		if fl >= 0x80 then flags.D = true end
		if bits(fl, 6, 1) == 1 then flags.Q = true end
		local rlen = rl == 0xFF and left or 4 + rl * 4
		local cut = false
		if rlen > left then
			iflag(rli, ie.truncated, string.format(
				"Report Length %d words runs past the datagram (%d bytes left)", rl, left))
			rlen, cut = left, true
		end
		rt:set_len(rlen)
		local e = off + rlen
		local p = off + 4
		local ok = true
		local bitsv = 0
		if rep_type == 1 then
			if rlen < 12 then
				iflag(rt, rl == 0xFF and ie.truncated or ie.length,
				      "report too short for the INT main contents")
				ok = false
			else
				bitsv = tvb(p, 2):uint()
				local mt = rt:add(tvb(p, 8), "Main contents")
				mt:add(f.v2_rep_md_bits, tvb(p, 2))
				mt:add(f.v2_domain_id, tvb(p + 2, 2))
				mt:add(f.v2_ds_md_bits, tvb(p + 4, 2))
				mt:add(f.v2_ds_md_status, tvb(p + 6, 2))
				local dsbits = tvb(p + 4, 2):uint()
				p = p + 8
				local words = bitmap16_words(bitsv)
				if ml < words or (dsbits == 0 and ml ~= words) then
					iflag(mli, ie.length, string.format(
						"MD Length %d words, RepMdBits select %d", ml, words))
					ok = false
				elseif e - p < ml * 4 then
					iflag(mli, rl == 0xFF and ie.truncated or ie.length,
					      "metadata runs past the report")
					ok = false
				else
					if ml > 0 then
						local t = rt:add(tvb(p, ml * 4), "Metadata")
						local q = md16(t, tvb, p, bitsv, "report", meta)
						if q < p + ml * 4 then t:add(meta.ds, tvb(q, p + ml * 4 - q)) end
						if bits(bitsv, 0, 1) == 1 then
							-- RepMdBits bit 15: queue id + drop reason is the last word
							info = info .. ", drop reason " .. tvb(q - 3, 1):uint()
						end
					end
					p = p + ml * 4
				end
			end
		elseif rep_type ~= 0 then
			iflag(rt, ie.unsupported, string.format(
				"RepType %d, only 0 (Inner Only) and 1 (INT) are read", rep_type))
			ok = false
		end
		if ok then
			if in_type == 0 then
				if e > p then rt:add(f.inner, tvb(p, e - p)) end
			elseif in_type >= 3 and in_type <= 5 then
				local md = dissect_inner(rt, tvb, pinfo, p, e - p, in_type)
				-- A sink's own metadata in the header (RepMdBits set) with
				-- a stack (perhaps empty) that does not already end at this
				-- node: the path's last hop (INT.mdk v2.1 sink option 2;
				-- docs/int.md "INT-MD sinks").
				local node = tvb(4, 4):uint()
				if rep_type == 1 and bitsv ~= 0 and md and md.n and
				   (md.n == 0 or md.top_switch ~= node) then
					rt:add(f.sink_hop, node):set_generated()
				end
			else
				iflag(rt, ie.unsupported, string.format(
					"InType %d, only 0 and 3..5 are read", in_type))
			end
		end
		if cut then break end
		off = e
	end
	local fs = (flags.D and "D" or "") .. (flags.Q and "Q" or "")
	info = info .. string.format(": %d report%s%s", n, n == 1 and "" or "s",
				     fs ~= "" and " (" .. fs .. ")" or "")
	return n, info
end

function intp.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	ist = { errors = 0 }
	local root = tree:add(intp, tvb())
	if tvb:reported_len() > len then
		root:add_proto_expert_info(ie.snapped, string.format(
			"only %d of %d bytes captured; the rest is not decoded", len, tvb:reported_len()))
	end
	local n, info
	if len == 0 then
		iflag(root, ie.truncated, "empty payload")
		n, info = 0, "INT (empty)"
	else
		local ver = bits(tvb(0, 1):uint(), 4, 4)
		if ver == 0 then
			n, info = dissect_v05(tvb, pinfo, root, len)
		elseif ver == 1 then
			n, info = dissect_v10(tvb, pinfo, root, len)
		elseif ver == 2 then
			n, info = dissect_v20(tvb, pinfo, root, len)
		else
			local vi = root:add(f.version, tvb(0, 1))
			iflag(vi, ie.version, string.format("report version %d is not 0, 1 or 2", ver))
			n, info = 0, "INT (unknown version)"
		end
	end
	root:add(f.reports, n):set_generated()
	root:add(f.valid, ist.errors == 0):set_generated()
	if ist.errors > 0 then
		root:add_proto_expert_info(ie.rejected,
			"dta_int_decode() refuses this datagram whole; the translator still applies "
			.. "the other reports of a v2.0 group and counts its sequence number")
		info = info .. " [malformed]"
	end
	root:append_text(", " .. info)
	-- Set last: the inner packet's dissectors wrote their own.
	pinfo.cols.protocol = "INT"
	pinfo.cols.info:clear_fence()
	pinfo.cols.info = info
	return len
end

-- ------------------------------------------------------------------------
-- registration

local udp_port = DissectorTable.get("udp.port")
local dta_port_now, int_port_now

local function register_ports()
	if dta_port_now ~= dta.prefs.udp_port then
		if dta_port_now and dta_port_now ~= 0 then udp_port:remove(dta_port_now, dta) end
		dta_port_now = dta.prefs.udp_port
		if dta_port_now ~= 0 then udp_port:add(dta_port_now, dta) end
	end
	if int_port_now ~= intp.prefs.udp_port then
		if int_port_now and int_port_now ~= 0 then udp_port:remove(int_port_now, intp) end
		int_port_now = intp.prefs.udp_port
		if int_port_now ~= 0 then udp_port:add(int_port_now, intp) end
	end
end

dta.prefs_changed = register_ports
intp.prefs_changed = register_ports

register_ports()
dta:register_heuristic("udp", dta_heuristic)
