// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/profile/diagnostic_model.h"

#include <QColor>

namespace dice {

DiagnosticModel::DiagnosticModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void DiagnosticModel::setDiagnostics(const std::vector<Diagnostic>& diagnostics) {
    beginResetModel();
    m_diagnostics = diagnostics;
    endResetModel();
}

void DiagnosticModel::retranslate() {
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_diagnostics.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString DiagnosticModel::severityName(Severity severity) {
    switch (severity) {
    case Severity::Error:
        return tr("error");
    case Severity::Warning:
        return tr("warning");
    case Severity::Remark:
        return tr("remark");
    }
    return {};
}

int DiagnosticModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_diagnostics.size());
}

int DiagnosticModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Diagnostic& d = m_diagnostics[static_cast<std::size_t>(index.row())];
    const QString message = QString::fromStdString(d.message);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return severityName(d.severity);
        case LineColumn:
            return QString::number(d.line);
        case ColumnColumn:
            return d.column > 0 ? QString::number(d.column) : QString();
        case MessageColumn:
            return message;
        }
        return {};
    case Qt::ToolTipRole:
        // The message column is often cut off; the warning number is nowhere else.
        return d.code.empty() ? message
                              : tr("%1 (#%2)").arg(message, QString::fromStdString(d.code));
    case Qt::ForegroundRole:
        if (index.column() != SeverityColumn)
            return {};
        return d.severity == Severity::Error ? QColor(0xc0, 0x20, 0x20) : QColor(0xa0, 0x70, 0x10);
    case SortRole:
        switch (index.column()) {
        case SeverityColumn:
            return static_cast<int>(d.severity);
        case LineColumn:
            return d.line;
        case ColumnColumn:
            return d.column;
        case MessageColumn:
            return message;
        }
        return {};
    case LineRole:
        return d.line;
    case ColumnRole:
        return d.column;
    default:
        return {};
    }
}

QVariant DiagnosticModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case LineColumn:
        return tr("Line");
    case ColumnColumn:
        return tr("Column");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

} // namespace dice
