// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/compile_service.h"

#include "core/cuda/nvrtc_compiler.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

namespace dice {

CompileService::CompileService(QObject* parent)
    : QObject(parent)
    , m_compiler(std::make_shared<NvrtcCompiler>()) {}

CompileService::~CompileService() = default;

int CompileService::compile(const QString& source, const QString& fileName,
                            const CompileOptions& options) {
    const int id = ++m_latest;
    ++m_pending;
    Q_EMIT started(id);
    QPointer<CompileService> self(this);
    auto compiler = m_compiler;
    const std::string text = source.toStdString();
    const std::string name = fileName.toStdString();
    QThreadPool::globalInstance()->start([self, compiler, text, name, options, id] {
        CompileResult result = compiler->compile(text, name, options);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, id, result] {
                if (!self)
                    return;
                --self->m_pending;
                if (id == self->m_latest)
                    Q_EMIT self->finished(id, result);
            },
            Qt::QueuedConnection);
    });
    return id;
}

} // namespace dice
