// SPDX-License-Identifier: GPL-3.0-or-later
// The SASS parser against golden files: real nvdisasm and cuobjdump output for the cubin of
// tests/fixtures/kernel-listings/kern.cu (README.md there says how they were made), each beside
// the listing that must be read from it. DICE_UPDATE_GOLDEN=1 rewrites the expected files from
// the parser instead of comparing, for a reviewed update after the tools' output is regenerated.
#include "core/common/error.h"
#include "core/common/file_util.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/sass_disassembler.h"
#include "core/cuda/sass_listing.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <regex>
#include <sstream>

using nlohmann::json;

namespace {

const std::string kFixtures = DICE_TEST_FIXTURES "/kernel-listings/";

bool updating() {
    const char* update = std::getenv("DICE_UPDATE_GOLDEN");
    return update && *update && std::string(update) != "0";
}

// The expected file's layout: one instruction to a line, so that a change reads as a diff of
// the instructions it touches.
std::string formatListing(const json& listing) {
    std::string out =
        "{\n  \"architecture\": " + listing["architecture"].dump() + ",\n  \"functions\": [";
    bool firstFunction = true;
    for (const auto& function : listing["functions"]) {
        out += firstFunction ? "\n" : ",\n";
        firstFunction = false;
        out += "    {\"name\": " + function["name"].dump() + ", \"instructions\": [";
        bool first = true;
        for (const auto& instruction : function["instructions"]) {
            out += (first ? "\n      " : ",\n      ") + instruction.dump();
            first = false;
        }
        out += "\n    ]}";
    }
    return out + "\n  ]\n}\n";
}

dice::SassListing parse(const std::string& name) {
    const std::string text = dice::readTextFile(kFixtures + name + ".txt");
    return name.rfind("cuobjdump", 0) == 0 ? dice::parseCuobjdumpListing(text)
                                           : dice::parseNvdisasmListing(text);
}

const dice::SassFunction* findFunction(const dice::SassListing& listing, const std::string& name) {
    for (const auto& f : listing.functions)
        if (f.name == name)
            return &f;
    return nullptr;
}

const dice::SassInstruction* at(const dice::SassFunction& function, std::uint64_t address) {
    for (const auto& i : function.instructions)
        if (i.address == address)
            return &i;
    return nullptr;
}

} // namespace

class TestSassListing : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void golden_data() {
        QTest::addColumn<QString>("name");
        for (const char* name : {"nvdisasm-c-g", "nvdisasm-c-gi", "nvdisasm-c-plain",
                                 "nvdisasm-c-g-hex", "cuobjdump-sass"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void golden() {
        QFETCH(QString, name);
        const std::string base = kFixtures + name.toStdString();
        const json parsed = dice::toJson(parse(name.toStdString()));
        if (updating()) {
            dice::writeFileAtomically(base + ".expected.json", formatListing(parsed));
            QSKIP("expected file rewritten");
        }
        const json expected = json::parse(dice::readTextFile(base + ".expected.json"));
        QCOMPARE(parsed["architecture"], expected["architecture"]);
        QCOMPARE(parsed["functions"].size(), expected["functions"].size());
        for (std::size_t f = 0; f < expected["functions"].size(); ++f) {
            const auto& got = parsed["functions"][f];
            const auto& want = expected["functions"][f];
            QCOMPARE(got["name"], want["name"]);
            QCOMPARE(got["instructions"].size(), want["instructions"].size());
            for (std::size_t i = 0; i < want["instructions"].size(); ++i)
                QVERIFY2(got["instructions"][i] == want["instructions"][i],
                         (got["name"].get<std::string>() + ": " + got["instructions"][i].dump() +
                          " instead of " + want["instructions"][i].dump())
                             .c_str());
        }
        QVERIFY(parsed == expected);
    }

    // Every instruction line of the tool's output is read, and nothing else is taken for one.
    void everyAddressLineIsAnInstruction_data() { golden_data(); }

    void everyAddressLineIsAnInstruction() {
        QFETCH(QString, name);
        const std::string text = dice::readTextFile(kFixtures + name.toStdString() + ".txt");
        const std::regex address(R"(^\s*/\*[0-9a-f]{4,}\*/)");
        std::istringstream in(text);
        std::size_t lines = 0;
        for (std::string line; std::getline(in, line);)
            lines += std::regex_search(line, address) ? 1 : 0;
        std::size_t instructions = 0;
        for (const auto& f : parse(name.toStdString()).functions)
            instructions += f.instructions.size();
        QVERIFY(lines > 100);
        QCOMPARE(instructions, lines);
    }

    // The four listings of one cubin agree on the code; -g and -gi agree on where it came from.
    void listingsOfOneCubinAgree() {
        const auto g = parse("nvdisasm-c-g");
        const auto gi = parse("nvdisasm-c-gi");
        const auto hex = parse("nvdisasm-c-g-hex");
        const auto cuobjdump = parse("cuobjdump-sass");
        QCOMPARE(g.functions.size(), std::size_t(4));
        QCOMPARE(toJson(g), toJson(hex));
        for (const auto& function : g.functions) {
            const auto* inlined = findFunction(gi, function.name);
            const auto* plain = findFunction(cuobjdump, function.name);
            QVERIFY(inlined && plain);
            QCOMPARE(inlined->instructions.size(), function.instructions.size());
            QCOMPARE(plain->instructions.size(), function.instructions.size());
            for (std::size_t i = 0; i < function.instructions.size(); ++i) {
                const auto& a = function.instructions[i];
                QCOMPARE(inlined->instructions[i].address, a.address);
                QCOMPARE(inlined->instructions[i].text(), a.text());
                QVERIFY(inlined->instructions[i].place == a.place);
                QVERIFY(a.inlinedAt.empty());
                QCOMPARE(plain->instructions[i].address, a.address);
                QCOMPARE(plain->instructions[i].opcode, a.opcode);
                QVERIFY(plain->instructions[i].place.file.empty());
            }
        }
    }

    // Facts of kern.cu read from its source, checked against the listings.
    void instructionsComeFromTheirSourceLines() {
        const auto gi = parse("nvdisasm-c-gi");
        QCOMPARE(gi.architecture, std::string("sm_90"));
        const auto* relu = findFunction(gi, "relu_kernel");
        QVERIFY(relu);
        // `if (i < n)` on line 5 is the predicated exit.
        const auto* exit = at(*relu, 0x70);
        QVERIFY(exit);
        QCOMPARE(exit->predicate, std::string("@P0"));
        QCOMPARE(exit->opcode, std::string("EXIT"));
        QCOMPARE(exit->operands, std::string());
        QCOMPARE(dice::sourceLineOf(*exit, "kern.cu"), 5);
        // `v > 0.0f ? v : 0.0f` on line 7 is a max with zero.
        const auto* max = at(*relu, 0xe0);
        QVERIFY(max);
        QCOMPARE(max->opcode, std::string("FMNMX"));
        QCOMPARE(dice::sourceLineOf(*max, "kern.cu"), 7);
        // The loop's branch target.
        const auto* rowSum = findFunction(gi, "row_sum_kernel");
        QVERIFY(rowSum);
        const auto* loop = at(*rowSum, 0xd0);
        QVERIFY(loop);
        QCOMPARE(loop->labels, std::vector<std::string>{".L_x_4"});
        const auto* back = at(*rowSum, 0x130);
        QCOMPARE(back->text(), std::string("@!P0 BRA `(.L_x_4)"));
        // The float-to-__half conversion of line 34 comes from cuda_fp16.h. With -g its
        // instruction names only the header; with -gi the line table places it in kern.cu
        // again (the header's entry, inlined at line 34, is followed at the same address by
        // line 34's own), so the source view finds it under its line either way it can.
        const auto* half = findFunction(gi, "_Z12scale_kernelI6__halfEvPKT_PS1_fi");
        QVERIFY(half);
        const auto* widen = at(*half, 0xf0);
        QVERIFY(widen);
        QCOMPARE(widen->opcode, std::string("HADD2.F32"));
        QCOMPARE(dice::sourceLineOf(*widen, "kern.cu"), 34);
        const auto g = parse("nvdisasm-c-g");
        const auto* shallow = at(*findFunction(g, half->name), 0x110);
        QVERIFY(shallow);
        QCOMPARE(shallow->opcode, std::string("F2FP.F16.F32.PACK_AB"));
        QVERIFY(shallow->place.file.size() > 11);
        QCOMPARE(shallow->place.file.substr(shallow->place.file.size() - 11),
                 std::string("cuda_fp16.h"));
        QCOMPARE(shallow->place.line, 4690);
        QCOMPARE(dice::sourceLineOf(*shallow, "kern.cu"), 0);
        const auto* deep = at(*half, 0x110);
        QVERIFY(deep);
        QCOMPARE(dice::sourceLineOf(*deep, "kern.cu"), 34);
        QCOMPARE(dice::sourceLineOf(*deep, "other.cu"), 0);
    }

    // nvdisasm -gi writes code inlined through several functions as one comment per call site,
    // innermost first, then the line of the instruction's own function. The regenerated kern.cu
    // has no such chain; this listing is written by hand in the layout nvdisasm 13.0 printed for
    // an nvcc build of it.
    void inlinedChainsAreReadInOrder() {
        const std::string text =
            "\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
            "//--------------------- .text.k --------------------------\n"
            "\t.section\t.text.k,\"ax\",@progbits\n"
            "\t.sectioninfo\t@\"SHI_REGISTERS=8\"\n"
            "        .global         k\n"
            "k:\n"
            ".text.k:\n"
            "\t//## File \"/t/h.h\", line 7 inlined at \"/t/g.h\", line 3\n"
            "\t//## File \"/t/g.h\", line 3 inlined at \"/k.cu\", line 12\n"
            "\t//## File \"/k.cu\", line 12\n"
            "        /*0000*/                   FMUL R0, R0, R1 ;\n"
            "\t//## File \"/k.cu\", line 13\n"
            "        /*0010*/                   EXIT ;\n";
        dice::SassListing listing;
        try {
            listing = dice::parseNvdisasmListing(text);
        } catch (const dice::Error& e) {
            QFAIL(e.what());
        }
        const auto* k = findFunction(listing, "k");
        QVERIFY(k);
        QCOMPARE(k->instructions.size(), std::size_t(2));
        const auto& mul = k->instructions[0];
        QVERIFY(mul.place == (dice::SourcePlace{"/t/h.h", 7}));
        QCOMPARE(mul.inlinedAt.size(), std::size_t(2));
        QVERIFY(mul.inlinedAt[0] == (dice::SourcePlace{"/t/g.h", 3}));
        QVERIFY(mul.inlinedAt[1] == (dice::SourcePlace{"/k.cu", 12}));
        QCOMPARE(dice::sourceLineOf(mul, "k.cu"), 12);
        QCOMPARE(dice::sourceLineOf(k->instructions[1], "k.cu"), 13);
    }

    void textPairsInstructionsWithSourceLines() {
        const std::string source = dice::readTextFile(kFixtures + "kern.cu");
        const auto text = dice::SassText::render(parse("nvdisasm-c-gi"), "kern.cu", source);
        std::vector<std::string> lines;
        std::istringstream in(text.text());
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
        QCOMPARE(static_cast<int>(lines.size()), text.lineCount());
        const auto seven = text.instructionLines(7);
        QCOMPARE(seven.size(), std::size_t(4)); // one before line 6's load, three after it
        for (int l : seven) {
            QCOMPARE(text.sourceLine(l), 7);
            QVERIFY2(lines[static_cast<std::size_t>(l)].find("/*") != std::string::npos,
                     lines[static_cast<std::size_t>(l)].c_str());
        }
        // Each run is headed by the line it came from, quoted.
        const auto first = static_cast<std::size_t>(seven.front());
        QCOMPARE(lines[first - 1], std::string("// kern.cu:7  y[i] = v > 0.0f ? v : 0.0f;"));
        QCOMPARE(text.sourceLine(static_cast<int>(first) - 1), 7);
        QCOMPARE(text.sourceLine(-1), 0);
        QCOMPARE(text.sourceLine(text.lineCount()), 0);
        QVERIFY(text.instructionLines(1).empty());
        QVERIFY(text.instructionLines(0).empty());
    }

    void badInputIsRejectedWithItsLine_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("tool error") << "nvdisasm fatal   : Input file 'x' is not a cubin\n"
                                    << "line 1: not nvdisasm output";
        QTest::newRow("no semicolon") << "//--------------------- .text.k ---\n"
                                         "        /*0000*/ EXIT\n"
                                      << "line 2: an instruction without its closing ';'";
        QTest::newRow("outside a function") << "        /*0000*/ EXIT ;\n"
                                            << "line 1: an instruction outside a function";
        QTest::newRow("bad place") << "//--------------------- .text.k ---\n"
                                      "\t//## File \"k.cu\", line x\n"
                                   << "line 2: a source place that cannot be read";
        QTest::newRow("bad call site") << "//--------------------- .text.k ---\n"
                                          "\t//## File \"a.h\", line 3 inlined at \"k.cu\"\n"
                                       << "line 2: a call site that cannot be read";
        QTest::newRow("trailing text") << "//--------------------- .text.k ---\n"
                                          "        /*0000*/ EXIT ; junk\n"
                                       << "line 2: unexpected text after the instruction";
        QTest::newRow("bare predicate") << "//--------------------- .text.k ---\n"
                                           "        /*0000*/ @P0 ;\n"
                                        << "line 2: a predicate without an instruction";
        QTest::newRow("huge address") << "//--------------------- .text.k ---\n"
                                         "        /*0123456789abcdef0*/ EXIT ;\n"
                                      << "line 2: the address is too large";
    }

    void badInputIsRejectedWithItsLine() {
        QFETCH(QString, text);
        QFETCH(QString, says);
        try {
            dice::parseNvdisasmListing(text.toStdString());
            QFAIL("accepted");
        } catch (const dice::Error& e) {
            QVERIFY2(std::string(e.what()).find(says.toStdString()) != std::string::npos, e.what());
        }
    }

    void textThatIsNotUtf8IsRejected() {
        const std::string text = "//--------------------- .text.k ---\n"
                                 "        /*0000*/ EXIT ;\n"
                                 "        /*0010*/ BRA \xea\x80 ;\n";
        for (const auto parse : {dice::parseNvdisasmListing, dice::parseCuobjdumpListing}) {
            try {
                parse(text);
                QFAIL("accepted");
            } catch (const dice::Error& e) {
                QVERIFY2(std::string(e.what()).find("line 3: not UTF-8 text") != std::string::npos,
                         e.what());
            }
        }
    }

    void cuobjdumpRejectsWhatItDoesNotKnow() {
        QVERIFY_THROWS_EXCEPTION(dice::Error,
                                 dice::parseCuobjdumpListing("cuobjdump fatal : not a cubin\n"));
        QVERIFY_THROWS_EXCEPTION(dice::Error,
                                 dice::parseCuobjdumpListing("        /*0000*/ EXIT ;\n"));
        QCOMPARE(dice::parseCuobjdumpListing("").functions.size(), std::size_t(0));
    }

    void parsersSurviveGarbage() {
        const std::string inputs[] = {"",
                                      "\n\n\n",
                                      std::string(1, '\0'),
                                      "/*",
                                      "/**/",
                                      "/*0000*/",
                                      "//## File \"",
                                      "//## File \"a\", line 99999999999999999999",
                                      "//---",
                                      "//--------------------- .text. ---",
                                      ":",
                                      ".target",
                                      std::string(100000, '@')};
        for (const auto& input : inputs) {
            for (const auto& parser : {dice::parseNvdisasmListing, dice::parseCuobjdumpListing}) {
                try {
                    parser(input);
                } catch (const dice::Error&) {
                }
            }
        }
    }

    // Where the toolkit is installed, the cubin NVRTC makes of kern.cu disassembles into the
    // fixture's functions, with the source lines of its line table.
    void disassemblesWhatNvrtcMakes() {
        if (!dice::NvrtcCompiler::available())
            QSKIP("this build has no NVRTC");
        const auto tool = dice::findSassTool();
        if (!tool || tool->kind != dice::SassTool::Kind::Nvdisasm)
            QSKIP("nvdisasm is not installed");
        dice::NvrtcCompiler compiler(0);
        dice::CompileOptions options;
        options.architecture = "sm_90";
        const auto compiled =
            compiler.compile(dice::readTextFile(kFixtures + "kern.cu"), "kern.cu", options);
        QVERIFY2(compiled.ok, compiled.log.c_str());
        const auto sass = dice::disassembleCubin(compiled.cubin);
        QVERIFY2(sass.ok(), sass.error.c_str());
        QCOMPARE(sass.tool, tool->path);
        QCOMPARE(sass.listing.architecture, std::string("sm_90"));
        const auto* relu = findFunction(sass.listing, "relu_kernel");
        QVERIFY(relu);
        bool max = false;
        for (const auto& i : relu->instructions)
            if (i.opcode == "FMNMX") {
                max = true;
                QCOMPARE(dice::sourceLineOf(i, "kern.cu"), 7);
            }
        QVERIFY(max);
        QVERIFY(findFunction(sass.listing, "row_sum_kernel"));
        QCOMPARE(sass.listing.functions.size(), std::size_t(4));
        QVERIFY(!dice::disassembleCubin("not a cubin").ok());
        QCOMPARE(dice::disassembleCubin("").error, std::string("there is no cubin to disassemble"));
    }
};

QTEST_GUILESS_MAIN(TestSassListing)
#include "tst_sass_listing.moc"
