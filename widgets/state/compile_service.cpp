// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/compile_service.h"

#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/sass_disassembler.h"
#include "core/eval/candidate.h"
#include "core/eval/candidate_compile.h"

namespace dice {

namespace {

// A candidate (a file named .dice): its device part through NVRTC (its #line keeps the file's line
// numbers) with the template kernels its host part launches, and its host part through the host
// compiler, so that both parts' mistakes are marked before an evaluation; any other file is CUDA
// for NVRTC as it is.
CompileResult compileFile(NvrtcCompiler& compiler, const std::string& text, const std::string& name,
                          const CompileOptions& options) {
    const std::string suffix = ".dice";
    if (name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return compiler.compile(text, name, options);
    NativeCandidate candidate;
    try {
        candidate = parseNativeCandidate(text, name);
    } catch (const FileError& e) {
        CompileResult invalid;
        invalid.architecture = options.architecture;
        invalid.diagnostics.push_back(candidateDiagnostic(e, name));
        invalid.log = e.what();
        return invalid;
    }
    return compileNativeCandidate(compiler, candidate, name, options);
}

} // namespace

CompileService::CompileService(QObject* parent)
    : QObject(parent)
    , m_compiler(std::make_shared<NvrtcCompiler>())
    , m_thread(new OwnerThread(QStringLiteral("compile"), this))
    , m_beside(new OwnerThread(QStringLiteral("compile beside"), this))
    , m_disassembler(new OwnerThread(QStringLiteral("disassemble"), this)) {}

CompileService::~CompileService() = default;

CompileJob* CompileService::compile(const QString& source, const QString& fileName,
                                    const CompileOptions& options) {
    return post(m_thread, source, fileName, options);
}

CompileJob* CompileService::compileBeside(const QString& source, const QString& fileName,
                                          const CompileOptions& options) {
    return post(m_beside, source, fileName, options);
}

CompileJob* CompileService::post(OwnerThread* thread, const QString& source,
                                 const QString& fileName, const CompileOptions& options) {
    auto* job = new CompileJob;
    thread->post(job, QStringLiteral("compile"), OwnerThread::InFlight::Dropped,
                 [job, compiler = m_compiler, text = source.toStdString(),
                  name = fileName.toStdString(), options](const OwnerThread::Context& context) {
                     CompileResult result = compileFile(*compiler, text, name, options);
                     context.deliver([job, result] { Q_EMIT job->finished(result); });
                 });
    return job;
}

DisassemblyJob* CompileService::disassemble(const std::string& cubin, const QString& sourceFile,
                                            const QString& source) {
    auto* job = new DisassemblyJob;
    m_disassembler->post(job, QStringLiteral("disassemble"), OwnerThread::InFlight::Dropped,
                         [job, cubin, name = sourceFile.toStdString(),
                          text = source.toStdString()](const OwnerThread::Context& context) {
                             const SassDisassembly sass = disassembleCubin(cubin);
                             const SassText listing =
                                 sass.ok() ? SassText::render(sass.listing, name, text)
                                           : SassText();
                             const QString tool = QString::fromStdString(sass.tool);
                             const QString error = QString::fromStdString(sass.error);
                             context.deliver([job, tool, error, listing] {
                                 Q_EMIT job->finished(tool, error, listing);
                             });
                         });
    return job;
}

} // namespace dice
