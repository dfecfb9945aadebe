// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/compile_service.h"

#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/sass_disassembler.h"

namespace dice {

CompileService::CompileService(QObject* parent)
    : QObject(parent)
    , m_compiler(std::make_shared<NvrtcCompiler>())
    , m_thread(new OwnerThread(QStringLiteral("compile"), this))
    , m_disassembler(new OwnerThread(QStringLiteral("disassemble"), this)) {}

CompileService::~CompileService() = default;

CompileJob* CompileService::compile(const QString& source, const QString& fileName,
                                    const CompileOptions& options) {
    auto* job = new CompileJob;
    m_thread->post(job, QStringLiteral("compile"), OwnerThread::InFlight::Dropped,
                   [job, compiler = m_compiler, text = source.toStdString(),
                    name = fileName.toStdString(), options](const OwnerThread::Context& context) {
                       CompileResult result = compiler->compile(text, name, options);
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
