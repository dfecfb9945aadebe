// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/compile_service.h"

#include "core/cuda/nvrtc_compiler.h"

namespace dice {

CompileService::CompileService(QObject* parent)
    : QObject(parent)
    , m_compiler(std::make_shared<NvrtcCompiler>())
    , m_thread(new OwnerThread(QStringLiteral("compile"), this)) {}

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

} // namespace dice
